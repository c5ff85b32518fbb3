import { describe, expect, it } from 'vitest';
import type { RunState } from '../../../../src/domain/run/state.js';
import { handleApprove } from '../../../../src/slack/listeners/actions/approve.js';
import {
  GONE,
  LEAD1,
  LEAD1_LOGIN,
  LEAD2,
  ONCALL,
  OUTSIDER,
  PROD,
  STAGING,
  UNRULED,
  useListenerWorld,
  type ListenerWorld,
} from '../world.js';

const world = useListenerWorld();

/** A refused click: told once, audited once as approve_refused with `reason`, and nothing else moved. */
async function expectRefused(
  w: ListenerWorld,
  runId: string,
  userId: string,
  reason: string,
  told: RegExp,
): Promise<void> {
  const before = w.snapshot(runId);
  const auditBefore = await w.audit({ runId });
  await handleApprove(w.deps, w.click(runId, userId), w.tell);
  expect(w.told).toHaveLength(1);
  expect(w.told[0]).toMatch(told);
  expect(await w.audit({ runId })).toEqual([...auditBefore, 'approve_refused']);
  expect((await w.store.listAudit({ runId })).at(-1)).toMatchObject({ actor: userId, detail: { reason } });
  expect(w.snapshot(runId)).toEqual(before);
  expect(w.recorded.applied).toEqual([]);
}

describe('handleApprove', () => {
  it('the approval that completes the rule moves the run to approved and asks for exactly one apply, by that approver', async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted');
    await handleApprove(w.deps, w.click(run.id, LEAD1), w.tell);
    expect(w.told).toEqual([expect.stringContaining('Approved (1/1): applying staging/network now.')]);
    expect(w.recorded.applied).toEqual([{ runId: run.id, state: 'approved', actor: LEAD1 }]);
    expect((await w.store.getRun(run.id))?.state).toBe('approved');
    expect((await w.store.listApprovals(run.id)).map((a) => [a.userId, a.groups])).toEqual([[LEAD1, ['sre-leads']]]);
    expect(await w.audit({ runId: run.id })).toEqual(['approved']);
    expect((await w.store.listAudit({ runId: run.id }))[0]).toMatchObject({
      actor: LEAD1,
      detail: { have: 1, need: 1, rule: 1 },
    });
  });

  it('a first of two approvals is recorded, re-renders the message and applies nothing; the second applies as its approver', async () => {
    const w = await world();
    const run = await w.run(PROD, 'drifted', { analysis: true, message: true });
    await handleApprove(w.deps, w.click(run.id, LEAD1), w.tell);
    expect(w.told).toEqual([expect.stringContaining('Your approval of prod/network is recorded (1/2).')]);
    expect(w.recorded.applied).toEqual([]);
    expect((await w.store.getRun(run.id))?.state).toBe('drifted');
    const updates = w.outbox();
    expect(updates.map((o) => [o.key, o.method])).toEqual([['stack:prod/network', 'chat.update']]);
    expect(JSON.stringify(updates[0]!.payload)).toContain('1/2');

    await handleApprove(w.deps, w.click(run.id, LEAD2), w.tell);
    expect(w.told[1]).toContain('Approved (2/2): applying prod/network now.');
    expect(w.recorded.applied).toEqual([{ runId: run.id, state: 'approved', actor: LEAD2 }]);
    expect(await w.audit({ runId: run.id })).toEqual(['approved', 'approved']);
  });

  it('a member of an approver group through a Slack user group may approve: the resolver asks the emulator', async () => {
    const w = await world();
    const run = await w.run(STAGING, 'pending_approval');
    await handleApprove(w.deps, w.click(run.id, ONCALL), w.tell);
    expect(w.recorded.applied).toEqual([{ runId: run.id, state: 'approved', actor: ONCALL }]);
    expect((await w.store.listApprovals(run.id)).map((a) => a.groups)).toEqual([['oncall']]);
    expect(w.emulator.calls().map((c) => c.method)).toEqual(['usergroups.list', 'usergroups.users.list']);
  });

  it('refuses someone in no approver group', async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted');
    await expectRefused(w, run.id, OUTSIDER, 'not_in_group', /Only members of .*sre-leads.* can approve this plan/);
  });

  it('refuses everyone on a stack no approvers rule covers', async () => {
    const w = await world();
    const run = await w.run(UNRULED, 'drifted');
    await expectRefused(
      w,
      run.id,
      LEAD1,
      'no_rule',
      /No approval rule in driftgate's config covers dev\/app, so nobody can approve its plans from Slack/,
    );
  });

  it("refuses the change's author, known through approvers.authors", async () => {
    const w = await world();
    const run = await w.run(STAGING, 'pending_approval', { kind: 'pending_change' });
    w.authors.set(run.id, ['someone-else', LEAD1_LOGIN.toUpperCase()]);
    await expectRefused(w, run.id, LEAD1, 'author', /You authored this change, so you cannot approve it yourself/);
  });

  it('refuses a second approval by the same person', async () => {
    const w = await world();
    const run = await w.run(PROD, 'drifted');
    await handleApprove(w.deps, w.click(run.id, LEAD1), w.tell);
    w.told.length = 0;
    await expectRefused(w, run.id, LEAD1, 'already_approved', /You have already approved this plan \(1\/2\)/);
  });

  it.each<[RunState, RegExp]>([
    ['approved', /already been approved and is being applied/],
    ['applied', /This plan has already been applied\./],
    ['rejected', /This plan was rejected; it can no longer be approved\./],
    ['superseded', /A newer plan replaced this one/],
    ['errored', /This run is errored: there is nothing to decide\./],
  ])('refuses a run that is %s: it no longer waits for a decision', async (state, told) => {
    const w = await world();
    const run = await w.run(STAGING, state);
    await expectRefused(w, run.id, LEAD1, 'not_awaiting', told);
  });

  it('refuses when Slack cannot say who is in the user group, and approves nothing', async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted');
    await w.emulator.down();
    await expectRefused(w, run.id, ONCALL, 'slack_unavailable', /could not check with Slack whether you are in/);
    expect(w.warnings()).toContain('could not resolve approver groups');
  });

  it('refuses a plan older than maxPlanAge: the run expires and a fresh check is asked for', async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted');
    w.app.now.value = new Date(w.app.now.value.getTime() + 5 * 3600_000);
    await handleApprove(w.deps, w.click(run.id, LEAD1), w.tell);
    expect(w.told).toEqual([
      expect.stringMatching(/This plan is 5h old, older than the 4h a plan may be applied within/),
    ]);
    expect((await w.store.getRun(run.id))?.state).toBe('expired');
    expect(w.recorded.checksRequested).toEqual([STAGING]);
    expect(w.recorded.applied).toEqual([]);
    expect(await w.store.listApprovals(run.id)).toEqual([]);
    expect(await w.store.listAudit({ runId: run.id })).toMatchObject([
      { action: 'approve_refused', detail: { reason: 'expired', state: 'expired' } },
    ]);
  });

  it.each([
    ['an unknown run', 'r_missing', /there is no run r_missing/],
    ['no run id at all', undefined, /there is no run \(none\)/],
  ])('tells of %s and audits nothing', async (_case, runId, told) => {
    const w = await world();
    await handleApprove(w.deps, w.click(runId, LEAD1), w.tell);
    expect(w.told).toEqual([expect.stringMatching(told)]);
    expect(await w.audit()).toEqual([]);
    expect(w.recorded.applied).toEqual([]);
  });

  it('tells that the stack of the run is no longer configured, and changes nothing', async () => {
    const w = await world();
    const run = await w.run(GONE, 'drifted');
    const before = w.snapshot(run.id);
    await handleApprove(w.deps, w.click(run.id, LEAD1), w.tell);
    expect(w.told).toEqual([expect.stringContaining("stack legacy/vpc is no longer in driftgate's config")]);
    expect(w.snapshot(run.id)).toEqual(before);
    expect(await w.audit()).toEqual([]);
  });
});
