import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import { StatusReportJson } from '../../src/cli/render/status-report.js';
import { runCli } from '../helpers/cli.js';
import { approvers, configYaml, slack, stackEntry } from '../helpers/config-builder.js';
import { withStoreAt } from '../helpers/process-wait.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

/**
 * `driftgate approve|reject --as` with Slack configured: the run's message follows the decision as it does
 * for a click (the new count, who rejected and why), queued in the outbox for serve to deliver. Real
 * terraform_data stacks, a real SQLite store, the CLI's own entry point.
 */
const ALICE = 'U0ALICE01';
const BOB = 'U0BOB0001';
const CHANNEL = 'C0ALERTS';

let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let file: string;
const dir = (stack: string) => join(tf.dir, stack);
const db = () => join(tf.dir, 'data', 'driftgate.db');
const cli = (...args: string[]) => runCli([...args, '--config', file], { cwd: tf.dir, env });

/** The outbox's chat.update items, in order. */
function updates(): string[] {
  const sqlite = new Database(db(), { readonly: true });
  try {
    const rows = sqlite.prepare("SELECT payload FROM outbox WHERE method = 'chat.update' ORDER BY id").all() as {
      payload: string;
    }[];
    return rows.map((r) => r.payload);
  } finally {
    sqlite.close();
  }
}

/** A drifted run of `stack` whose alert is out in the channel. */
async function driftedRunWithMessage(stack: string): Promise<string> {
  await editResourceInput(
    { binary: 'terraform', env },
    dir(stack),
    { type: 'terraform_data', name: stack },
    (input) => {
      input.size = 'huge';
    },
  );
  expect((await cli('check', stack)).code).toBe(2);
  const report = StatusReportJson.parse(JSON.parse((await cli('status', '--json', stack)).stdout));
  const runId = report.stacks[0]!.openRuns[0]!.id;
  await withStoreAt(db(), (s) => s.setMessage({ runId, channel: CHANNEL, ts: `1700000000.${runId.slice(-6)}` }));
  return runId;
}

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-approve-messages-');
  env = { PATH: process.env.PATH, HOME: tf.dir, USER: 'grace', ...tf.env };
  for (const stack of ['app', 'web']) {
    await mkdir(dir(stack));
    await writeFile(
      join(dir(stack), 'main.tf'),
      `resource "terraform_data" "${stack}" {\n  input = { size = "small" }\n}\n`,
    );
    await execa('terraform', ['init', '-input=false'], { cwd: dir(stack), env, extendEnv: false });
    await execa('terraform', ['apply', '-auto-approve', '-input=false'], { cwd: dir(stack), env, extendEnv: false });
  }
  file = join(tf.dir, 'driftgate.yml');
  await writeFile(
    file,
    configYaml(
      {
        dataDir: join(tf.dir, 'data'),
        log: { level: 'silent' },
        stacks: ['app', 'web'].map((s) => stackEntry(s, dir(s))),
      },
      {
        ...slack(CHANNEL),
        ...approvers({ ops: [ALICE, BOB] }, [{ stacks: '*', count: 2, from: ['ops'] }], { allowCli: true }),
      },
    ),
  );
}, 120_000);
afterAll(() => tf.cleanup());

describe('driftgate approve|reject --as with Slack configured', () => {
  it("re-renders the run's message with the new count after an approval, and says who rejected and why", async () => {
    const approved = await driftedRunWithMessage('app');
    expect(updates()).toEqual([]);
    expect((await cli('approve', approved, '--as', ALICE)).code).toBe(0);
    expect(updates()).toHaveLength(1);
    expect(updates()[0]).toContain('1/2');

    const rejected = await driftedRunWithMessage('web');
    expect((await cli('reject', rejected, '--as', BOB, '--reason', 'resized on purpose')).code).toBe(0);
    expect(updates()).toHaveLength(2);
    expect(updates()[1]).toContain(`Rejected by <@${BOB}>: resized on purpose`);
  });
});
