import { describe, expect, it } from 'vitest';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import { loadArtifact } from '../../src/services/runtime/artifacts.js';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { CHANNEL, type SlackServe } from '../helpers/slack-serve.js';
import { SENSITIVE_DATABASE } from '../helpers/stack-files.js';
import { APPROVERS, LEAD1, alerts } from './fixtures.js';

const SECRET = 'hunter2-slack-must-never-see-this';
// Not distinctive enough to be searched in free text: it must be masked by structure and by value.
const PIN = 739184652;

/** A sensitive number and flag, mirrored unmarked in terraform_data's `output`. */
const SENSITIVE_PIN = `
variable "pin" {
  type      = number
  sensitive = true
}
resource "terraform_data" "door" {
  input = { user = "app", pin = var.pin }
}
`;

const startServe = useSlackServe();

/** Applies `stack`, sets its terraform_data `name`'s input.user to root in state, checks it: one alert. */
async function driftAlerted(h: SlackServe, stack: string, name: string, secret: string) {
  await h.applyWithTerraform(stack);
  await editResourceInput(
    { binary: 'terraform', env: h.env },
    h.stackDir(stack),
    { type: 'terraform_data', name },
    (input) => {
      input.user = 'root';
    },
  );
  const outcome = await h.running.scheduler.request(stack);
  if (outcome.status !== 'drifted') throw new Error(`expected drift, got ${outcome.status}`);
  // The raw plan really holds the secret, so the checks that follow can fail.
  const planJson = await loadArtifact(h.running.context.deps, outcome.run.id, 'plan_json');
  expect(planJson?.toString('utf8')).toContain(secret);
  await h.settle();
  expect(alerts(h, CHANNEL)).toHaveLength(1);
  return outcome;
}

describe('sensitive values and Slack', () => {
  it('keeps a secret out of every call to Slack, every file, every answer and the logs, through alert, plan file and apply', async () => {
    const h = await startServe({
      stacks: { 'staging/db': SENSITIVE_DATABASE },
      stackSettings: { 'staging/db': { environment: 'staging', vars: { password: '${DB_PASSWORD}' } } },
      config: APPROVERS,
      env: { DB_PASSWORD: SECRET, TF_VAR_password: SECRET },
    });
    const outcome = await driftAlerted(h, 'staging/db', 'creds', SECRET);

    await h.click(ACTION_IDS.viewPlan, outcome.run.id, LEAD1, { id: 'view' });
    await h.settle();
    expect(h.emulator.files()).toHaveLength(1);
    expect(h.emulator.files()[0]!.bytes?.toString('utf8')).toContain('(sensitive value)');

    await h.click(ACTION_IDS.approve, outcome.run.id, LEAD1, { id: 'approve' });
    await h.settle();
    expect((await h.running.context.store.getRun(outcome.run.id))?.state).toBe('applied');

    const everything = [
      JSON.stringify(h.emulator.calls()),
      JSON.stringify(h.emulator.messages()),
      JSON.stringify(h.emulator.responses()),
      ...h.emulator.files().map((f) => f.bytes?.toString('utf8') ?? ''),
      h.logs.join(''),
    ].join('\n');
    expect(everything).toContain('root');
    expect(everything).not.toContain(SECRET);
  });

  it('keeps a sensitive number out of the alert, the plan file and the logs, though terraform_data copies it unmarked', async () => {
    const h = await startServe({
      stacks: { 'staging/door': SENSITIVE_PIN },
      stackSettings: { 'staging/door': { environment: 'staging', vars: { pin: PIN } } },
      config: APPROVERS,
      env: { TF_VAR_pin: String(PIN) },
    });
    const outcome = await driftAlerted(h, 'staging/door', 'door', String(PIN));
    await h.click(ACTION_IDS.viewPlan, outcome.run.id, LEAD1, { id: 'view' });
    await h.settle();
    const everything = [
      JSON.stringify(h.emulator.calls()),
      ...h.emulator.files().map((f) => f.bytes?.toString('utf8') ?? ''),
      h.logs.join(''),
    ].join('\n');
    expect(everything).toContain('root');
    expect(everything).not.toContain(String(PIN));
  });
});
