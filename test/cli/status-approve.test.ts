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
const MALLORY = 'U0MALLORY';

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
const writeConfig = (allowCli?: boolean) =>
  writeFile(
    file,
    configYaml(
      {
        dataDir: join(tf.dir, 'data'),
        log: { level: 'silent' },
        stacks: ['app', 'web', 'fresh'].map((s) => stackEntry(s, dir(s))),
      },
      approvers(
        { ops: [ALICE, BOB] },
        [
          { stacks: 'app', count: 2, from: ['ops'] },
          { stacks: 'web', count: 1, from: ['ops'] },
        ],
        allowCli === undefined ? {} : { allowCli },
      ),
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

    // A message Slack refused for good: shown until its retention ends (failed before: it was seen nowhere).
    expect((await status()).report.outbox).toEqual({ dead: 0, newest: [] });
    const dead = await withStore(async (s) => {
      const item = await s.enqueue({ key: runId, method: 'chat.postMessage', payload: { text: 'refused' } });
      await s.markDead(item.id, 'invalid_blocks');
      return item;
    });
    expect((await status()).report.outbox).toMatchObject({
      dead: 1,
      newest: [{ id: dead.id, key: runId, method: 'chat.postMessage', attempts: 1, error: 'invalid_blocks' }],
    });
    expect((await cli('status')).stdout).toMatch(
      new RegExp(
        `^outbox: 1 delivery failed for good \\(kept 14d, defaults.outboxDeadRetention\\):\n {4}#${dead.id} chat.postMessage ${runId}, .+ ago after 1 attempt: invalid_blocks$`,
        'm',
      ),
    );
  });
});

describe('driftgate approve and reject', () => {
  const appRun = async () => (await status('app')).report.stacks[0]!.openRuns[0]!.id;
  const audit = (runId: string) =>
    withStore(async (s) =>
      (await s.listAudit({ runId })).map((a) => ({ actor: a.actor, action: a.action, detail: a.detail })),
    );

  it('are refused while approvers.allowCli is off (the default): Slack approvals only', async () => {
    const runId = await appRun();
    const result = await cli('approve', runId, '--as', ALICE);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('approvers.allowCli: is false (the default): decisions are taken in Slack only');
    expect((await cli('reject', runId, '--as', ALICE)).stderr).toContain('approvers.allowCli');
    expect(await withStore((s) => s.listApprovals(runId))).toEqual([]);
    expect((await status('app')).report.stacks[0]!.openRuns[0]!.state).toBe('drifted');
  });

  it('count toward the same quorum as Slack, under the same rules, audited with the OS user; the last one applies', async () => {
    await writeConfig(true);
    const runId = await appRun();

    const outsider = await cli('approve', runId, '--as', MALLORY);
    expect(outsider.code).toBe(1);
    expect(outsider.stderr).toMatch(/^refused: .*ops/m);
    expect((await cli('approve', runId, '--as', 'alice')).stderr).toContain('is not a Slack user id');

    const first = await cli('approve', runId, '--as', ALICE);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toBe(`app: approval of run ${runId} by ${ALICE} recorded (1/2); still needs 1 from ops\n`);
    expect((await status('app')).report.stacks[0]!.openRuns[0]).toMatchObject({
      state: 'drifted',
      approvals: [{ user: ALICE }],
      approvalsNeeded: 2,
      approvalsMissing: [{ count: 1, groups: ['ops'] }],
    });
    expect((await cli('status', 'app')).stdout).toContain(`approved by ${ALICE} (1/2), needs 1 from ops`);
    const again = await cli('approve', runId, '--as', ALICE);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('refused: You have already approved this plan (1/2)');

    const last = await cli('approve', runId, '--as', BOB);
    expect(last.stderr).toBe('');
    expect(last.stdout).toContain(`app: run ${runId} approved (2/2); applied in this process`);
    expect(last.stdout).toMatch(/app: applied run .*Apply complete! Resources: 0 added, 1 changed, 0 destroyed/);
    expect(last.code).toBe(0);

    const after = (await status('app')).report.stacks[0]!;
    expect(after).toMatchObject({ status: 'in_sync', openRuns: [], lock: null });
    expect((await cli('check', 'app')).code).toBe(0);
    const pulled = await execa('terraform', ['state', 'pull'], { cwd: dir('app'), env, extendEnv: false });
    expect(pulled.stdout).toContain('"size": "small"');

    const trail = await audit(runId);
    const via = { via: 'cli:grace' };
    expect(trail).toEqual(
      expect.arrayContaining([
        {
          actor: MALLORY,
          action: 'approve_refused',
          detail: expect.objectContaining({ reason: 'not_in_group', ...via }),
        },
        { actor: ALICE, action: 'approved', detail: expect.objectContaining({ have: 1, need: 2, ...via }) },
        {
          actor: ALICE,
          action: 'approve_refused',
          detail: expect.objectContaining({ reason: 'already_approved', ...via }),
        },
        { actor: BOB, action: 'approved', detail: expect.objectContaining({ have: 2, need: 2, ...via }) },
        expect.objectContaining({ actor: BOB, action: 'apply_started' }),
        expect.objectContaining({ actor: BOB, action: 'applied' }),
      ]),
    );
  });

  it('reject ends the run and snoozes its drift, audited with the OS user', async () => {
    await drift('web');
    expect((await cli('check', 'web')).code).toBe(2);
    const runId = (await status('web')).report.stacks[0]!.openRuns[0]!.id;
    expect((await cli('reject', runId, '--as', MALLORY)).code).toBe(1);
    const result = await cli('reject', runId, '--as', BOB, '--reason', 'resized on purpose');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`^web: run ${runId} rejected by ${BOB}; the same drift is not alerted again before `),
    );
    expect((await status('web')).report.stacks[0]!.openRuns).toEqual([]);
    expect(await audit(runId)).toContainEqual({
      actor: BOB,
      action: 'rejected',
      detail: expect.objectContaining({ reason: 'resized on purpose', via: 'cli:grace' }),
    });
    const unknown = await cli('approve', 'r_nothing', '--as', BOB);
    expect(unknown).toMatchObject({ code: 1, stderr: 'refused: there is no run r_nothing\n' });
  });

  it('say which Slack variable is wrong, and send the bot token nowhere, when user groups cannot be read for it', async () => {
    await drift('app');
    expect((await cli('check', 'app')).code).toBe(2);
    const runId = await appRun();
    const groupsFile = join(tf.dir, 'usergroups.yml');
    await writeFile(
      groupsFile,
      configYaml(
        {
          dataDir: join(tf.dir, 'data'),
          log: { level: 'warn' },
          stacks: ['app', 'web', 'fresh'].map((s) => stackEntry(s, dir(s))),
        },
        approvers({ leads: { usergroups: ['sre-leads'] } }, [{ stacks: 'app', count: 1, from: ['leads'] }], {
          allowCli: true,
        }),
      ),
    );
    const slackEnv = { ...env, SLACK_BOT_TOKEN: 'xoxb-test-token', SLACK_API_URL: 'slack.internal/api' };
    const result = await runCli(['approve', runId, '--as', ALICE, '--log-level', 'warn', '--config', groupsFile], {
      cwd: tf.dir,
      env: slackEnv,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refused: driftgate could not check with Slack whether you are in');
    expect(result.stderr).toContain('SLACK_API_URL must be a URL such as https://slack.com/api/');
    expect(result.stderr).not.toContain('xoxb-test-token');
    expect(await withStore((s) => s.listApprovals(runId))).toEqual([]);
  });
});
