import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunStore } from '../../src/ports/store.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { waitFor, withStoreAt } from '../helpers/process-wait.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

/**
 * The process as a whole: Ctrl-C during a plan, kill -9 during a plan, and the next start. A plan is kept
 * waiting by holding the stack's state lock with `terraform console`, as a colleague's session would.
 */
let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let config: string;
let stackDir: string;
let holder: ResultPromise | undefined;

const withStore = async <T>(fn: (store: RunStore) => Promise<T>): Promise<T> =>
  await withStoreAt(join(tf.dir, 'data', 'driftgate.db'), fn);

const planningRun = () => withStore(async (s) => (await s.listRuns({ stack: 'app', states: ['planning'] }))[0]);

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-lifecycle-');
  stackDir = join(tf.dir, 'app');
  await mkdir(stackDir);
  await writeFile(join(stackDir, 'main.tf'), 'resource "terraform_data" "a" {\n  input = "v1"\n}\n');
  env = { PATH: process.env.PATH, HOME: process.env.HOME, ...tf.env };
  await execa('terraform', ['init', '-input=false'], { cwd: stackDir, env, extendEnv: false });
  await execa('terraform', ['apply', '-auto-approve', '-input=false'], { cwd: stackDir, env, extendEnv: false });
  config = join(tf.dir, 'driftgate.yml');
  await writeFile(
    config,
    configYaml({
      dataDir: join(tf.dir, 'data'),
      terraform: { timeouts: { lock: '5m', killGrace: '5s' } },
      stacks: [stackEntry('app', stackDir)],
    }),
  );
  // Holds the state lock until its stdin closes.
  holder = execa('terraform', ['console'], { cwd: stackDir, env, extendEnv: false, stdin: 'pipe', reject: false });
});

afterAll(async () => {
  holder?.stdin?.end();
  await holder;
  await tf.cleanup();
});

describe.skipIf(!HAS_BUILD)(`driftgate process lifecycle (${HAS_BUILD ? 'built' : NO_BUILD_REASON})`, () => {
  it('Ctrl-C during a plan stops terraform and marks the run interrupted', async () => {
    const check = execa('node', [BIN, 'check', 'app', '--config', config], { env, extendEnv: false, reject: false });
    const run = await waitFor('the plan to start', planningRun);
    check.kill('SIGINT');
    const result = await check;
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(/app\s+INTERRUPTED/);
    expect((await withStore((s) => s.getRun(run.id)))?.state).toBe('interrupted');
  });

  it('after kill -9 during a plan, the next start marks the run interrupted, removes its saved plan and serves', async () => {
    const check = execa('node', [BIN, 'check', 'app', '--config', config], {
      env,
      extendEnv: false,
      reject: false,
      detached: true,
    });
    // Planning is recorded a moment before the run's scratch dir is made: wait for both, so the kill lands
    // where this test means it to, with terraform waiting on the lock.
    const run = await waitFor('the plan to start', async () => {
      const planning = await planningRun();
      return planning && existsSync(join(tf.dir, 'data', 'work', planning.id)) ? planning : undefined;
    });
    process.kill(-check.pid!, 'SIGKILL'); // the whole process group, terraform too: a power cut
    await check;
    expect((await withStore((s) => s.getRun(run.id)))?.state).toBe('planning');
    // The killed run's scratch dir is left behind; its plan is written there as a kill after the plan leaves it.
    const runDir = join(tf.dir, 'data', 'work', run.id);
    expect(existsSync(runDir)).toBe(true);
    const leftover = join(runDir, 'plan.tfplan');
    await execa('terraform', ['plan', '-lock=false', '-input=false', `-out=${leftover}`], {
      cwd: stackDir,
      env,
      extendEnv: false,
    });
    expect(existsSync(leftover)).toBe(true);

    const serve = execa('node', [BIN, 'serve', '--config', config, '--port', '0'], {
      env,
      extendEnv: false,
      reject: false,
    });
    await waitFor('recovery', async () =>
      (await withStore((s) => s.getRun(run.id)))?.state === 'interrupted' ? true : undefined,
    );
    await waitFor('the leftover to be removed', () => (existsSync(runDir) ? undefined : true));
    serve.kill('SIGTERM');
    const result = await serve;
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toMatch(/interrupted by an earlier stop/);
    expect(result.stderr).toMatch(/removed work dirs left by an earlier stop/);
  });
});
