import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import { StatusReportJson } from '../../src/cli/render/status-report.js';
import type { Store } from '../../src/ports/store.js';
import { runCli } from '../helpers/cli.js';
import { approvers, configYaml, stackEntry } from '../helpers/config-builder.js';
import { withStoreAt } from '../helpers/process-wait.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

/**
 * `driftgate status` reads where things stand from the store, and `driftgate approve|reject --as` decide
 * through the same use cases as Slack's buttons: real terraform_data stacks, drift made by editing state,
 * a real SQLite store, the CLI's own entry point.
 */
const hcl = (name: string) => `resource "terraform_data" "${name}" {\n  input = { size = "small" }\n}\n`;
const ALICE = 'U0ALICE01';
const BOB = 'U0BOB0001';

let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let file: string;
const dir = (stack: string) => join(tf.dir, stack);

const cli = (...args: string[]) => runCli([...args, '--config', file], { cwd: tf.dir, env });
const withStore = <T>(fn: (store: Store) => Promise<T>) => withStoreAt(join(tf.dir, 'data', 'driftgate.db'), fn);
const status = async (...stacks: string[]) => {
  const result = await cli('status', '--json', ...stacks);
  return { code: result.code, report: StatusReportJson.parse(JSON.parse(result.stdout)) };
};
const writeConfig = () =>
  writeFile(
    file,
    configYaml(
      {
        dataDir: join(tf.dir, 'data'),
        log: { level: 'silent' },
        stacks: ['app', 'web', 'fresh'].map((s) => stackEntry(s, dir(s))),
      },
      approvers({ ops: [ALICE, BOB] }, [
        { stacks: 'app', count: 2, from: ['ops'] },
        { stacks: 'web', count: 1, from: ['ops'] },
      ]),
    ),
  );
const drift = (stack: string) =>
  editResourceInput({ binary: 'terraform', env }, dir(stack), { type: 'terraform_data', name: stack }, (input) => {
    input.size = 'huge';
  });

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-status-');
  env = { PATH: process.env.PATH, HOME: tf.dir, USER: 'grace', ...tf.env };
  for (const stack of ['app', 'web', 'fresh']) {
    await mkdir(dir(stack));
    await writeFile(join(dir(stack), 'main.tf'), hcl(stack));
  }
  for (const stack of ['app', 'web']) {
    await execa('terraform', ['init', '-input=false'], { cwd: dir(stack), env, extendEnv: false });
    await execa('terraform', ['apply', '-auto-approve', '-input=false'], { cwd: dir(stack), env, extendEnv: false });
  }
  file = join(tf.dir, 'driftgate.yml');
  await writeConfig();
}, 120_000);
afterAll(() => tf.cleanup());

describe('driftgate status', () => {
  it('before any check: every stack never checked, exit 0, no terraform run', async () => {
    const { code, report } = await status();
    expect(code).toBe(0);
    expect(report.stacks.map((s) => [s.name, s.status, s.lastCheck, s.openRuns])).toEqual([
      ['app', 'unknown', null, []],
      ['web', 'unknown', null, []],
      ['fresh', 'unknown', null, []],
    ]);
    const table = await cli('status');
    expect(table.stdout).toMatch(/^STACK\s+STATE\s+LAST CHECK\s+RUN\s+CHANGES$/m);
    expect(table.stdout).toMatch(/^fresh\s+never checked\s+-\s+-$/m);
  });

  it('after a check: the drift, its run and what its approval still needs; locks, blocks and silences', async () => {
    await drift('app');
    expect((await cli('check', 'app', 'web')).code).toBe(2);
    const { code, report } = await status();
    expect(code).toBe(2);
    const [app, web] = report.stacks;
    const runId = app!.lastCheck!.runId!;
    expect(app).toMatchObject({
      status: 'drifted',
      lastCheck: { runId, state: 'drifted', counts: { update: 1 }, error: null },
      counts: { update: 1 },
      lock: null,
      blocked: null,
      openRuns: [
        {
          id: runId,
          state: 'drifted',
          kind: 'drift',
          approvals: [],
          approvalsNeeded: 2,
          approvalsMissing: [{ count: 2, groups: ['ops'] }],
        },
      ],
    });
    expect(web).toMatchObject({ status: 'in_sync', lastCheck: { state: 'no_changes' }, openRuns: [] });

    const table = (await cli('status', 'app')).stdout;
    expect(table).toMatch(
      new RegExp(`^app\\s+drifted\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\dZ \\(.+ ago\\)\\s+${runId}\\s+~1$`, 'm'),
    );
    expect(table).toContain(`    run ${runId}: drifted, ~1; (0/2), needs 2 from ops`);
    expect(table).not.toMatch(/^web/m);

    // What a process holding the stack and an interrupted apply leave in the store.
    const webRun = web!.lastCheck!.runId!;
    const until = new Date(Date.now() + 3_600_000);
    await withStore(async (s) => {
      await s.acquireLock('web', webRun, 3_600_000);
      await s.blockStack('web', `apply of run ${webRun} was interrupted`);
      await s.silence({ stack: 'app', until, by: ALICE, reason: 'migration tonight' });
    });
    const held = await status();
    expect(held.code).toBe(2);
    expect(held.report.stacks[1]).toMatchObject({
      lock: { runId: webRun, owner: { pid: process.pid } },
      blocked: { reason: `apply of run ${webRun} was interrupted` },
    });
    expect(held.report.stacks[0]!.silence).toEqual({
      until: until.toISOString(),
      by: ALICE,
      reason: 'migration tonight',
    });
    const lines = (await cli('status')).stdout;
    expect(lines).toMatch(new RegExp(`^    locked by run ${webRun} until .+ \\(.+ pid ${process.pid}\\)$`, 'm'));
    expect(lines).toContain(
      `    blocked: apply of run ${webRun} was interrupted; once its real state is checked: driftgate unlock web`,
    );
    expect(lines).toMatch(/^ {4}silenced until .+ by U0ALICE01: migration tonight$/m);

    expect((await cli('unlock', 'web')).code).toBe(0);
    await withStore((s) => s.unsilence('app'));
    expect((await status('web')).report.stacks[0]).toMatchObject({ lock: null, blocked: null });
  });
});
