import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import type { ConfigPatch } from '../helpers/config-builder.js';
import type { EmulatedMessage } from '../helpers/slack-emulator.js';
import { CHANNEL, type SlackServe } from '../helpers/slack-serve.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { APPROVERS, NETWORK, actionIds, alerts, makeDrift, textOf } from './fixtures.js';

const startServe = useSlackServe();

const WITH_LEGACY = `${NETWORK}
resource "terraform_data" "legacy" {
  input = { name = "old-bastion" }
}
`;

// terraform_data's attribute is `input`; `output` mirrors it and is unknown after any change of it.
const MINOR_POLICIES: ConfigPatch = {
  policies: {
    rules: [
      {
        name: 'tag-only-changes-are-minor',
        when: [
          'resource.actions == ["update"]',
          '&& resource.changed_attributes.exists(a, a.startsWith("input.tags"))',
          String.raw`&& resource.changed_attributes.all(a, a.matches(r"^input\.tags($|[.\[])") || a == "output")`,
        ].join(' '),
        effect: 'minor',
      },
      {
        name: 'destroy-needs-approval',
        when: '"delete" in resource.actions',
        message: '{{ resource.address }} would be destroyed: an SRE lead must approve',
        effect: 'require_approval',
        count: 1,
        from: ['sre-leads'],
      },
    ],
  },
};

/** A check of the stack, once its jobs (an automatic apply, the messages) are done. */
async function checkNow(h: SlackServe, stack: string): Promise<string> {
  const outcome = await h.running.scheduler.request(stack);
  if (outcome.status !== 'drifted') throw new Error(`expected drift, got ${outcome.status}`);
  await h.settle();
  return outcome.run.id;
}

/** The run's own message, as it reads now. */
async function messageOf(h: SlackServe, runId: string): Promise<EmulatedMessage | undefined> {
  const ref = await h.running.context.store.getMessage(runId);
  return ref && h.emulator.message(ref.channel, ref.ts);
}

const editVpc = (h: SlackServe, edit: (input: Record<string, unknown>) => void) =>
  editResourceInput(
    { binary: 'terraform', env: h.env },
    h.stackDir('dev/network'),
    { type: 'terraform_data', name: 'vpc' },
    edit,
  );

describe('remediation modes', () => {
  it('auto-apply applies drift without a person, posts it and audits it with the mode as the actor', async () => {
    const h = await startServe({
      stacks: { 'dev/network': NETWORK },
      stackSettings: { 'dev/network': { environment: 'dev', mode: 'auto-apply' } },
      config: APPROVERS,
    });
    await makeDrift(h, 'dev/network');
    const outcome = await h.running.scheduler.request('dev/network');
    if (outcome.status !== 'drifted') throw new Error(`expected drift, got ${outcome.status}`);
    await h.settle();

    const store = h.running.context.store;
    expect((await store.getRun(outcome.run.id))?.state).toBe('applied');
    const audit = await store.listAudit({ runId: outcome.run.id });
    expect(audit.find((a) => a.action === 'auto_apply_started')).toMatchObject({
      actor: 'driftgate:auto-apply',
      detail: { reason: 'mode auto-apply' },
    });
    expect(audit.find((a) => a.action === 'apply_started')?.actor).toBe('driftgate:auto-apply');
    const [alert] = alerts(h, CHANNEL);
    expect(alerts(h, CHANNEL)).toHaveLength(1);
    expect(textOf(h.emulator.message(alert!.channel, alert!.ts))).toContain('verified: no drift');
    expect(actionIds(h.emulator.message(alert!.channel, alert!.ts))).toEqual([]);
    expect((await store.getStack('dev/network'))?.status).toBe('in_sync');
  });

  it('alert mode never applies by itself', async () => {
    const h = await startServe({
      stacks: { 'dev/network': NETWORK },
      stackSettings: { 'dev/network': { environment: 'dev' } },
      config: APPROVERS,
    });
    await makeDrift(h, 'dev/network');
    const outcome = await h.running.scheduler.request('dev/network');
    if (outcome.status !== 'drifted') throw new Error(`expected drift, got ${outcome.status}`);
    await h.settle();
    expect((await h.running.context.store.getRun(outcome.run.id))?.state).toBe('drifted');
    expect((await h.running.context.store.listAudit({ runId: outcome.run.id })).map((a) => a.action)).not.toContain(
      'apply_started',
    );
  });

  it('auto-minor applies a tag-only drift by itself, and asks people for a CIDR change and for a destroy', async () => {
    const h = await startServe({
      stacks: { 'dev/network': WITH_LEGACY },
      stackSettings: { 'dev/network': { environment: 'dev', mode: 'auto-minor' } },
      config: { ...APPROVERS, ...MINOR_POLICIES },
    });
    const store = h.running.context.store;
    const decision = async (runId: string) =>
      (await store.listAudit({ runId })).find((a) => a.action.startsWith('auto_apply_'));

    // Only tags changed: applied without a person, posted and audited.
    await makeDrift(h, 'dev/network');
    const tags = await checkNow(h, 'dev/network');
    expect((await store.getRun(tags))?.state).toBe('applied');
    expect(await decision(tags)).toMatchObject({
      actor: 'driftgate:auto-minor',
      action: 'auto_apply_started',
      detail: { reason: 'mode auto-minor: every change is minor', rules: ['tag-only-changes-are-minor'] },
    });
    expect((await store.listAudit({ runId: tags })).find((a) => a.action === 'apply_started')?.actor).toBe(
      'driftgate:auto-minor',
    );
    const applied = await messageOf(h, tags);
    expect(applied?.text).toMatch(/Applied in \d+ s, verified: no drift$/);
    expect(actionIds(applied)).toEqual([]);
    // Posted once: no second message of the same run is left with an Approve button.
    expect(alerts(h, CHANNEL)).toHaveLength(1);

    // The CIDR changed out of band: not minor, so people decide.
    await editVpc(h, (input) => {
      input.cidr = '10.9.0.0/16';
    });
    const cidr = await checkNow(h, 'dev/network');
    expect((await store.getRun(cidr))?.state).toBe('drifted');
    expect(await decision(cidr)).toMatchObject({
      actor: 'driftgate:auto-minor',
      action: 'auto_apply_declined',
      detail: { reason: 'mode auto-minor: not every change is minor' },
    });
    expect(actionIds(await messageOf(h, cidr))).toEqual([ACTION_IDS.approve, ACTION_IDS.reject, ACTION_IDS.viewPlan]);

    // The CIDR is set back and a resource is removed from the code: a destroy needs an SRE lead.
    await editVpc(h, (input) => {
      input.cidr = '10.0.0.0/16';
    });
    await writeFile(join(h.stackDir('dev/network'), 'main.tf'), NETWORK);
    const destroy = await checkNow(h, 'dev/network');
    expect((await store.getRun(destroy))?.state).toBe('drifted');
    expect((await store.getRun(cidr))?.state).toBe('superseded');
    expect(await decision(destroy)).toMatchObject({
      action: 'auto_apply_declined',
      detail: { reason: 'destroy-needs-approval requires approval', rules: ['destroy-needs-approval'] },
    });
    const asks = await messageOf(h, destroy);
    expect(textOf(asks)).toContain('terraform_data.legacy would be destroyed: an SRE lead must approve');
    expect(actionIds(asks)).toEqual([ACTION_IDS.approve, ACTION_IDS.reject, ACTION_IDS.viewPlan]);
    expect((await store.listAudit({ stack: 'dev/network' })).filter((a) => a.action === 'apply_started')).toHaveLength(
      1,
    );
  });
});
