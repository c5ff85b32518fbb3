/**
 * Policies where people decide, against real terraform through the real Bolt receiver: a denied plan has
 * no Approve button and a signed click on it is refused; a require_approval rule adds a group whose
 * approval is needed on top of the approvers rule; what an ignore rule covers is listed as ignored.
 */
import { describe, expect, it } from 'vitest';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { approvers, type ConfigPatch } from '../helpers/config-builder.js';
import type { EmulatedMessage } from '../helpers/slack-emulator.js';
import type { SlackServe } from '../helpers/slack-serve.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { LEAD1, LEAD2, NETWORK, actionIds, textOf } from './fixtures.js';

const SENIOR = 'U0SENIOR1';

const DATA = `
resource "terraform_data" "vpc" {
  input = { cidr = "10.0.0.0/16", tags = { Name = "main", CostCenter = "cc-1" } }
}
resource "terraform_data" "db" {
  input = { size = "db.small" }
}
`;

const APPROVERS = approvers({ 'sre-leads': [LEAD1, LEAD2], senior: [SENIOR] }, [
  { stacks: '*', count: 1, from: ['sre-leads'] },
]);

// terraform_data's attribute is `input`; `output` mirrors it and is unknown after any change of it.
const POLICIES: ConfigPatch = {
  policies: {
    rules: [
      {
        name: 'cidr-owned-by-network-team',
        when: '"input.cidr" in resource.changed_attributes',
        message: '{{ resource.address }}: the CIDR belongs to the network team, change it in IPAM',
        effect: 'deny',
      },
      {
        name: 'db-size-needs-senior',
        when: 'resource.name == "db" && "input.size" in resource.changed_attributes',
        message: '{{ resource.address }}: a database size change needs a senior approver',
        effect: 'require_approval',
        count: 1,
        from: ['senior'],
      },
      {
        name: 'cost-tool-tags',
        when: 'size(resource.changed_attributes) > 0 && resource.changed_attributes.all(a, a == "input.tags.CostCenter" || a == "output")',
        effect: 'ignore',
      },
    ],
  },
};

const startServe = useSlackServe();

/** A staging stack applied, changed out of band by `edits`, and checked: its drifted run and message. */
async function driftedRun(
  hcl: string,
  edits: Record<string, (input: Record<string, unknown>) => void>,
): Promise<{ h: SlackServe; runId: string; message: () => Promise<EmulatedMessage | undefined> }> {
  const stack = 'staging/network';
  const h = await startServe({
    stacks: { [stack]: hcl },
    stackSettings: { [stack]: { environment: 'staging' } },
    config: { ...APPROVERS, ...POLICIES },
  });
  await h.applyWithTerraform(stack);
  for (const [name, edit] of Object.entries(edits)) {
    await editResourceInput(
      { binary: 'terraform', env: h.env },
      h.stackDir(stack),
      { type: 'terraform_data', name },
      edit,
    );
  }
  const outcome = await h.running.scheduler.request(stack);
  if (outcome.status !== 'drifted') throw new Error(`expected drift, got ${outcome.status}`);
  await h.settle();
  const runId = outcome.run.id;
  return {
    h,
    runId,
    message: async () => {
      const ref = await h.running.context.store.getMessage(runId);
      return ref && h.emulator.message(ref.channel, ref.ts);
    },
  };
}

const said = (h: SlackServe, id: string) => JSON.stringify(h.emulator.responses(id));

describe('policies in Slack decisions', () => {
  it('a denied plan shows why, has no Approve button, and a signed Approve click is refused and audited', async () => {
    const { h, runId, message } = await driftedRun(NETWORK, {
      vpc: (input) => {
        input.cidr = '10.9.0.0/16';
      },
    });
    expect(textOf(await message())).toContain('Denied by policy');
    expect(textOf(await message())).toContain(
      'terraform_data.vpc: the CIDR belongs to the network team, change it in IPAM',
    );
    expect(actionIds(await message())).toEqual([ACTION_IDS.reject, ACTION_IDS.viewPlan]);

    // The button is gone, but a request can still be made: the service refuses it.
    await h.click(ACTION_IDS.approve, runId, LEAD1, { id: 'denied' });
    await h.settle();
    expect(said(h, 'denied')).toContain('the CIDR belongs to the network team, change it in IPAM');
    const store = h.running.context.store;
    expect((await store.listAudit({ runId })).find((a) => a.action === 'approve_refused')).toMatchObject({
      actor: LEAD1,
      detail: { reason: 'denied' },
    });
    expect((await store.getRun(runId))?.state).toBe('drifted');
    expect(await store.listApprovals(runId)).toEqual([]);
  });

  it('a policy adds a senior approval to the lead’s; an ignored change is listed as ignored', async () => {
    const { h, runId, message } = await driftedRun(DATA, {
      vpc: (input) => {
        (input.tags as Record<string, string>).CostCenter = 'cc-stamped-by-the-cost-tool';
      },
      db: (input) => {
        input.size = 'db.xlarge';
      },
    });
    const store = h.running.context.store;
    expect(textOf(await message())).toContain('1 change ignored by `cost-tool-tags`');
    expect(textOf(await message())).toContain('terraform_data.db: a database size change needs a senior approver');
    expect(textOf(await message())).toContain(
      'Waiting for 2 approvals: 1 from sre-leads and 1 from senior (policy db-size-needs-senior)',
    );

    // A lead's approval meets the approvers rule, not the policy's: nothing is applied.
    await h.click(ACTION_IDS.approve, runId, LEAD1, { id: 'lead1' });
    await h.settle();
    expect(said(h, 'lead1')).toContain('recorded (1/2)');
    expect((await store.getRun(runId))?.state).toBe('drifted');
    expect(textOf(await message())).toContain(`Approved by <@${LEAD1}> (1/2)`);
    expect(textOf(await message())).toMatch(/Waiting for 1 approval more from senior[^a-z]/);
    // Another lead cannot stand in for the senior.
    await h.click(ACTION_IDS.approve, runId, LEAD2, { id: 'lead2' });
    await h.settle();
    expect(said(h, 'lead2')).toContain('still needed: 1 from senior');
    expect((await store.getRun(runId))?.state).toBe('drifted');

    await h.click(ACTION_IDS.approve, runId, SENIOR, { id: 'senior' });
    await h.settle();
    expect((await store.getRun(runId))?.state).toBe('applied');
    expect((await store.listApprovals(runId)).map((a) => a.userId)).toEqual([LEAD1, SENIOR]);
    expect(textOf(await message())).toMatch(/Applied in \d+ s, verified: no drift/);
  });
});
