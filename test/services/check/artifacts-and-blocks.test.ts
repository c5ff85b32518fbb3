import { afterEach, describe, expect, it } from 'vitest';
import { closedPort } from '../../helpers/ports.js';
import { applySavedPlan } from '../../../src/services/apply/apply-saved-plan.js';
import { checkStack } from '../../../src/services/check/check-stack.js';
import { pruneArtifacts } from '../../../src/services/runtime/retention.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { configYaml, stackEntry, type ConfigPatch } from '../../helpers/config-builder.js';
import { runCli } from '../../helpers/cli.js';
import { startLocalS3, type LocalS3 } from '../../helpers/s3rver.js';

const STACK = 'resource "terraform_data" "queue" {\n  input = { name = "jobs", retention = 4 }\n}\n';

let app: TestApp | undefined;
let s3: LocalS3 | undefined;
afterEach(async () => {
  await app?.close();
  await s3?.close();
  app = undefined;
  s3 = undefined;
});

const s3Config = (endpoint: string): ConfigPatch => ({
  artifacts: { type: 's3', bucket: 'plans', region: 'us-east-1', endpoint, forcePathStyle: true },
});
// Static credentials keep the SDK from looking for instance metadata on the network.
const s3Env = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

describe('artifact store and blocked stacks', () => {
  it('plans and applies with saved plans kept in an S3-compatible store', async () => {
    s3 = await startLocalS3(['plans']);
    app = await makeTestApp({ stacks: { queue: STACK }, config: s3Config(s3.endpoint), env: s3Env });
    const { deps, store } = app.context;
    const stack = app.context.stack('queue')!;
    const planned = await checkStack(deps, stack, { trigger: 'manual' });
    if (planned.status !== 'drifted')
      throw new Error(`expected changes, got ${planned.status}: ${JSON.stringify(planned)}`);
    expect(deps.artifacts.location).toContain('s3://plans/');
    expect((await store.listArtifacts(planned.run.id)).map((a) => a.kind).sort()).toEqual([
      'analysis',
      'evidence',
      'plan',
      'plan_json',
      'plan_log',
    ]);
    const applied = await applySavedPlan(deps, stack, planned.run.id, 'U1');
    expect(applied).toMatchObject({ status: 'applied', verification: { status: 'no_changes' } });
  });

  it('errors the run with the reason when the artifact store is unreachable, and stays usable', async () => {
    app = await makeTestApp({
      stacks: { queue: STACK },
      config: s3Config(`http://127.0.0.1:${await closedPort()}`),
      env: s3Env,
    });
    const { deps, store } = app.context;
    const outcome = await checkStack(deps, app.context.stack('queue')!, { trigger: 'manual' });
    expect(outcome).toMatchObject({ status: 'errored', error: expect.stringContaining('s3://plans/') });
    if (outcome.status !== 'errored') throw new Error('unreachable');
    expect(await store.getRun(outcome.run!.id)).toMatchObject({ state: 'errored' });
    expect(await store.getLock('queue')).toBeUndefined();
  });

  it('keeps a blocked stack from being planned until a person unlocks it', async () => {
    app = await makeTestApp({ stacks: { queue: STACK } });
    const { deps, store } = app.context;
    await store.blockStack('queue', 'apply of run r_1 was interrupted');
    const runsBefore = (await store.listRuns({ stack: 'queue' })).length;
    expect(await checkStack(deps, app.context.stack('queue')!, { trigger: 'schedule' })).toEqual({
      stack: 'queue',
      status: 'blocked',
      reason: 'apply of run r_1 was interrupted',
    });
    expect(await store.listRuns({ stack: 'queue' })).toHaveLength(runsBefore);

    const config = app.context.config;
    const yml = `${app.tf.dir}/cli.yml`;
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      yml,
      configYaml({ dataDir: config.dataDir, stacks: [stackEntry('queue', app.context.stack('queue')!.dir)] }),
    );
    const unlocked = await runCli(['unlock', 'queue', '--config', yml], { cwd: app.tf.dir, env: app.env });
    expect(unlocked).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('was blocked: apply of run r_1 was interrupted'),
    });
    expect((await store.listAudit({ stack: 'queue' })).map((a) => a.action)).toContain('unlock');
    expect((await checkStack(deps, app.context.stack('queue')!, { trigger: 'manual' })).status).toBe('drifted');
  });

  it('deletes the artifacts of runs older than the retention', async () => {
    app = await makeTestApp({ stacks: { queue: STACK } });
    const { deps, store } = app.context;
    const old = await checkStack(deps, app.context.stack('queue')!, { trigger: 'manual' });
    app.now.value = new Date(app.now.value.getTime() + 40 * 86_400_000);
    const recent = await checkStack(deps, app.context.stack('queue')!, { trigger: 'manual' });
    const oldRun = 'run' in old ? old.run! : undefined;
    const recentRun = 'run' in recent ? recent.run! : undefined;
    const oldKeys = (await store.listArtifacts(oldRun!.id)).map((a) => a.key);
    // The saved plan, its JSON, its log, the analysis and the evidence of why it drifted.
    expect(oldKeys).toHaveLength(5);

    const removed = await pruneArtifacts(deps, new Date(app.now.value.getTime() - 30 * 86_400_000));
    expect(removed).toBe(5);
    expect(await store.listArtifacts(oldRun!.id)).toEqual([]);
    for (const key of oldKeys) await expect(deps.artifacts.get(key)).rejects.toThrow();
    expect(await store.listArtifacts(recentRun!.id)).toHaveLength(5);
  });
});
