/**
 * Two `driftgate check` processes on one stack (issue 25, point 8), and Ctrl-C with stacks still queued
 * (point 15). The first check's plan is held by terraform's state lock, which a `terraform console` keeps
 * as a colleague's session would; the second waits for driftgate's stack lock and says who holds it, or
 * with --no-wait fails at once naming the holder and what to do.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunStore } from '../../src/ports/store.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import { waitFor, withStoreAt } from '../helpers/process-wait.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let config: string;
let stackDir: string;
let holder: ResultPromise | undefined;

const withStore = async <T>(fn: (store: RunStore) => Promise<T>): Promise<T> =>
  await withStoreAt(join(tf.dir, 'data', 'driftgate.db'), fn);
const planningRun = () => withStore(async (s) => (await s.listRuns({ stack: 'app', states: ['planning'] }))[0]);
const check = (...args: string[]) =>
  execa('node', [BIN, 'check', ...args, '--config', config], { env, extendEnv: false, reject: false });
/** Holds app's state lock until its stdin closes. */
const holdState = () =>
  execa('terraform', ['console'], { cwd: stackDir, env, extendEnv: false, stdin: 'pipe', reject: false });

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-check-beside-check-');
  stackDir = join(tf.dir, 'app');
  const otherDir = join(tf.dir, 'other');
  await mkdir(stackDir);
  await mkdir(otherDir);
  await writeFile(join(stackDir, 'main.tf'), 'resource "terraform_data" "a" {\n  input = "v1"\n}\n');
  await writeFile(join(otherDir, 'main.tf'), 'resource "terraform_data" "b" {\n  input = "v1"\n}\n');
  env = { PATH: process.env.PATH, HOME: process.env.HOME, USER: 'grace', NO_COLOR: '1', ...tf.env };
  await execa('terraform', ['init', '-input=false'], { cwd: stackDir, env, extendEnv: false });
  await execa('terraform', ['apply', '-auto-approve', '-input=false'], { cwd: stackDir, env, extendEnv: false });
  config = join(tf.dir, 'driftgate.yml');
  await writeFile(
    config,
    configYaml({
      dataDir: join(tf.dir, 'data'),
      defaults: { concurrency: 1 },
      terraform: { timeouts: { lock: '5m', killGrace: '5s' } },
      stacks: [stackEntry('app', stackDir), stackEntry('other', otherDir)],
    }),
  );
}, 60_000);

afterAll(async () => {
  holder?.stdin?.end();
  await holder;
  await tf.cleanup();
});

describe.skipIf(!HAS_BUILD)(`a check beside another (${HAS_BUILD ? 'built' : NO_BUILD_REASON})`, () => {
  it('waits for the stack another check holds, saying who holds it; --no-wait fails at once, naming the holder', async () => {
    holder = holdState();
    const first = check('app');
    const run = await waitFor('the first plan to start', planningRun);

    const refused = await check('app', '--no-wait');
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toMatch(/^app +ERROR /m);
    expect(refused.stdout).toContain(
      `stack is locked by run ${run.id} (pid ${first.pid} on host ${hostname()}, since `,
    );
    expect(refused.stdout).toContain('`driftgate unlock app` breaks it now');
    expect(refused.stderr).not.toContain('waiting');

    const second = check('app');
    let said = '';
    second.stderr?.on('data', (chunk) => (said += String(chunk)));
    await waitFor('the second check to say it waits', () => (said.includes('waiting') ? true : undefined));
    expect(said).toMatch(
      new RegExp(
        `^ {2}app: waiting up to 5m for its lock, held by run ${run.id} \\(pid ${first.pid} on host ${hostname()}, since [^)]+\\); --no-wait fails at once instead$`,
        'm',
      ),
    );
    holder.stdin?.end();
    await holder;
    const [done, waited] = await Promise.all([first, second]);
    expect(done.exitCode).toBe(0);
    expect(waited.exitCode).toBe(0);
    expect(waited.stdout).toMatch(/^app +in sync /m);
    expect(waited.stdout).not.toContain('locked by');
    // Each check asked for is audited with who asked, as `/drift check`'s are, refused or not.
    const audit = await withStore((s) => s.listAudit({ stack: 'app' }));
    expect(audit.filter((a) => a.action === 'check_requested').map((a) => a.actor)).toEqual([
      'cli:grace',
      'cli:grace',
      'cli:grace',
    ]);
  }, 120_000);

  it('Ctrl-C with stacks still queued shows them SKIPPED, the one planning INTERRUPTED', async () => {
    holder = holdState();
    const both = check('app', 'other');
    await waitFor('the plan of app to start', planningRun);
    both.kill('SIGINT');
    const result = await both;
    holder.stdin?.end();
    await holder;
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(/^app +INTERRUPTED /m);
    expect(result.stdout).toMatch(/^other +SKIPPED +stopped before it started$/m);
    expect(result.stdout).not.toMatch(/ERROR/);
    expect(result.stdout).toMatch(/, 1 skipped$/m);
  }, 120_000);
});
