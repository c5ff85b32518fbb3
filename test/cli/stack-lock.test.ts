import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '../../src/domain/run/model.js';
import type { RunStore } from '../../src/ports/store.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { waitFor, withStoreAt } from '../helpers/process-wait.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

/**
 * Stack locks across real processes: an apply whose provisioner outlasts the lock TTL keeps its lock by
 * heartbeat, a second process cannot take it, a kill -9 frees it once the TTL has run out; and a restart
 * never applies again a run whose apply was handed to terraform, even when the store lost `applying`.
 */
const TTL_MS = 2_000;
let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let config: string;
let stackDir: string;
let serve: ResultPromise | undefined;
let run: Run;

const provisioned = async () =>
  (await readFile(join(stackDir, 'provisioned.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean).length;

const withStore = async <T>(fn: (store: RunStore) => Promise<T>): Promise<T> =>
  await withStoreAt(join(tf.dir, 'data', 'driftgate.db'), fn);

const check = (...args: string[]) =>
  execa('node', [BIN, 'check', 'app', '--config', config, ...args], { env, extendEnv: false, reject: false });
const startServe = () =>
  execa('node', [BIN, 'serve', '--config', config, '--port', '0'], {
    env,
    extendEnv: false,
    reject: false,
    detached: true,
  });

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-stack-lock-');
  stackDir = join(tf.dir, 'app');
  await mkdir(stackDir);
  const hcl = (rev: string) => `resource "terraform_data" "slow" {
  triggers_replace = "${rev}"
  provisioner "local-exec" {
    command = "echo ${rev} >> provisioned.log && sleep 8"
  }
}
`;
  await writeFile(join(stackDir, 'main.tf'), hcl('v1'));
  env = { PATH: process.env.PATH, HOME: process.env.HOME, ...tf.env };
  await execa('terraform', ['init', '-input=false'], { cwd: stackDir, env, extendEnv: false });
  await execa('terraform', ['apply', '-auto-approve', '-input=false'], { cwd: stackDir, env, extendEnv: false });
  await writeFile(join(stackDir, 'main.tf'), hcl('v2'));
  config = join(tf.dir, 'driftgate.yml');
  await writeFile(
    config,
    configYaml({
      dataDir: join(tf.dir, 'data'),
      defaults: { lockTtl: `${TTL_MS / 1000}s` },
      terraform: { timeouts: { killGrace: '5s' } },
      stacks: [stackEntry('app', stackDir, { schedule: '0 0 1 1 *' })],
    }),
  );
}, 120_000);

afterAll(async () => {
  if (serve?.pid && serve.exitCode === null && serve.signalCode === null) process.kill(-serve.pid, 'SIGKILL');
  await serve;
  await tf.cleanup();
});

describe.skipIf(!HAS_BUILD)(`stack locks across processes (${HAS_BUILD ? 'built' : NO_BUILD_REASON})`, () => {
  it('an apply outlasting the TTL keeps its lock, a second process cannot take it, kill -9 frees it after the TTL', async () => {
    expect((await check()).exitCode).not.toBe(1);
    run = (await withStore(
      async (s) => (await s.listRuns({ stack: 'app', states: ['drifted', 'pending_approval'] }))[0],
    ))!;
    expect(await provisioned()).toBe(1);
    await withStore((s) => s.transition(run.id, ['drifted', 'pending_approval'], 'approved'));

    // serve applies the approved run left over at its start; the provisioner runs four TTLs.
    serve = startServe();
    await waitFor('the provisioner to start', async () => ((await provisioned()) === 2 ? true : undefined));
    await new Promise((r) => setTimeout(r, TTL_MS * 1.5));
    expect(await withStore(async (s) => (await s.getRun(run.id))?.state)).toBe('applying');
    const lock = await withStore((s) => s.getLock('app'));
    expect(lock).toMatchObject({ runId: run.id, owner: { pid: serve.pid } });
    expect(lock!.expiresAt.getTime()).toBeGreaterThan(Date.now());

    const refused = await check('--no-wait');
    expect(refused.stdout).toMatch(new RegExp(`locked by run ${run.id}`));
    expect(await withStore(async (s) => (await s.getLock('app'))?.runId)).toBe(run.id);

    process.kill(-serve.pid!, 'SIGKILL'); // serve and terraform: a power cut
    await serve;
    const expires = (await withStore((s) => s.getLock('app')))!.expiresAt.getTime();
    await new Promise((r) => setTimeout(r, Math.max(0, expires - Date.now()) + 200));
    const after = await check();
    expect(after.stdout).not.toMatch(/locked by run/);
    expect(await withStore((s) => s.getLock('app'))).toBeUndefined();
  }, 180_000);

  it('a restart never applies again a run whose apply was handed to terraform, though the store lost applying', async () => {
    // The store loses `approved -> applying` (synchronous=NORMAL and an OS crash): the run reads approved.
    const db = new Database(join(tf.dir, 'data', 'driftgate.db'));
    db.prepare("UPDATE runs SET state = 'approved' WHERE id = ?").run(run.id);
    db.close();
    serve = startServe();
    await waitFor('recovery', () =>
      withStore(async (s) => ((await s.getRun(run.id))?.state === 'interrupted' ? true : undefined)),
    );
    expect(await withStore(async (s) => (await s.getStack('app'))?.blockedReason)).toMatch(
      new RegExp(`apply of run ${run.id}`),
    );
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await provisioned()).toBe(2);
    serve.kill('SIGTERM');
    await serve;
  }, 120_000);
});
