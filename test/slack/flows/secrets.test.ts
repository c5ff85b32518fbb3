import { describe, expect, it } from 'vitest';
import { useSlackServe } from '../../helpers/use-slack-serve.js';
import { editResourceInput } from '../../../src/cli/commands/demo-drift.js';
import { loadArtifact } from '../../../src/services/artifacts.js';
import { ACTION_IDS } from '../../../src/slack/action-ids.js';
import { CHANNEL } from '../../helpers/slack-serve.js';
import { SENSITIVE_DATABASE } from '../../helpers/stack-files.js';
import { APPROVERS, LEAD1, alerts } from './fixtures.js';

const SECRET = 'hunter2-slack-must-never-see-this';

const startServe = useSlackServe();

describe('sensitive values and Slack', () => {
  it('keeps a secret out of every call to Slack, every file, every answer and the logs, through alert, plan file and apply', async () => {
    const h = await startServe({
      stacks: { 'staging/db': SENSITIVE_DATABASE },
      stackSettings: { 'staging/db': { environment: 'staging', vars: { password: '${DB_PASSWORD}' } } },
      config: APPROVERS,
      env: { DB_PASSWORD: SECRET, TF_VAR_password: SECRET },
    });
    await h.applyWithTerraform('staging/db');
    await editResourceInput(
      { binary: 'terraform', env: h.env },
      h.stackDir('staging/db'),
      { type: 'terraform_data', name: 'creds' },
      (input) => {
        input.user = 'root';
      },
    );
    const outcome = await h.running.scheduler.request('staging/db');
    if (outcome.status !== 'drifted') throw new Error(`expected drift, got ${outcome.status}`);
    // The raw plan really holds the secret, so the checks below can fail.
    const planJson = await loadArtifact(h.running.context.deps, outcome.run.id, 'plan_json');
    expect(planJson?.toString('utf8')).toContain(SECRET);
    await h.settle();
    expect(alerts(h, CHANNEL)).toHaveLength(1);

    await h.click(ACTION_IDS.viewPlan, outcome.run.id, LEAD1, { id: 'view' });
    await h.settle();
    expect(h.emulator.files()).toHaveLength(1);
    expect(h.emulator.files()[0]!.bytes?.toString('utf8')).toContain('(sensitive value)');

    await h.click(ACTION_IDS.approve, outcome.run.id, LEAD1, { id: 'approve' });
    await h.settle();
    expect(h.running.context.store.getRun(outcome.run.id)?.state).toBe('applied');

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
});
