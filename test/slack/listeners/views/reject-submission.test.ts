import { describe, expect, it } from 'vitest';
import { REJECT_MODAL } from '../../../../src/slack/action-ids.js';
import type { Tell } from '../../../../src/slack/listeners/tell.js';
import { handleRejectSubmission } from '../../../../src/slack/listeners/views/reject-submission.js';
import {
  GONE,
  LEAD1,
  LEAD1_LOGIN,
  OUTSIDER,
  STAGING,
  UNRULED,
  useListenerWorld,
  type ListenerWorld,
} from '../world.js';

const world = useListenerWorld();

type Values = Record<string, Record<string, { value?: string | null }>>;

const submission = (
  runId: string,
  userId: string,
  reason?: string | null,
): { userId: string; runId: string; values: Values } => ({
  userId,
  runId,
  values:
    reason === undefined ? {} : { [REJECT_MODAL.reasonBlockId]: { [REJECT_MODAL.reasonActionId]: { value: reason } } },
});

/** The tell for a stack, recording which stack it was asked for. */
function tellFor(w: ListenerWorld): { stacks: string[]; tellFor: (stack: string) => Tell } {
  const stacks: string[] = [];
  return {
    stacks,
    tellFor: (stack) => {
      stacks.push(stack);
      return w.tell;
    },
  };
}

describe('handleRejectSubmission', () => {
  it('rejects with the reason, snoozes the drift, audits it and re-renders the message; the person is told nothing more', async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted', { analysis: true, message: true });
    const told = tellFor(w);
    await handleRejectSubmission(w.deps, submission(run.id, LEAD1, '  intended: codified in PR #42  '), told.tellFor);
    const rejected = (await w.store.getRun(run.id))!;
    expect(rejected.state).toBe('rejected');
    expect(told.stacks).toEqual([]);
    const snoozedUntil = new Date(w.app.now.value.getTime() + 24 * 3600_000);
    expect(await w.store.isSnoozed(STAGING, rejected.fingerprint!, new Date(snoozedUntil.getTime() - 1))).toBe(true);
    expect(await w.store.isSnoozed(STAGING, rejected.fingerprint!, new Date(snoozedUntil.getTime() + 1))).toBe(false);
    expect(await w.store.listAudit({ runId: run.id })).toMatchObject([
      {
        action: 'rejected',
        actor: LEAD1,
        detail: {
          reason: 'intended: codified in PR #42',
          snoozedUntil: snoozedUntil.toISOString(),
          fingerprint: rejected.fingerprint,
        },
      },
    ]);
    const [update, ...rest] = w.outbox();
    expect(rest).toEqual([]);
    expect(update?.method).toBe('chat.update');
    expect(JSON.stringify(update?.payload)).toContain(`Rejected by <@${LEAD1}>: intended: codified in PR #42`);
  });

  it("the change's author may reject it; an empty reason is no reason", async () => {
    const w = await world();
    const run = await w.run(STAGING, 'pending_approval', { kind: 'pending_change' });
    w.authors.set(run.id, [LEAD1_LOGIN]);
    await handleRejectSubmission(w.deps, submission(run.id, LEAD1, '   '), tellFor(w).tellFor);
    expect((await w.store.getRun(run.id))?.state).toBe('rejected');
    const [entry] = await w.store.listAudit({ runId: run.id });
    expect(entry).toMatchObject({ action: 'rejected', actor: LEAD1 });
    expect(entry!.detail!.reason).toBeUndefined();
  });

  it.each([
    [
      'someone in no approver group',
      STAGING,
      'drifted' as const,
      OUTSIDER,
      'not_in_group',
      /Only members of .*sre-leads.* can reject this plan/,
    ],
    ['a stack no rule covers', UNRULED, 'drifted' as const, LEAD1, 'no_rule', /nobody can reject its plans from Slack/],
    [
      'a run that is no longer waiting',
      STAGING,
      'approved' as const,
      LEAD1,
      'not_awaiting',
      /already been approved and is being applied/,
    ],
  ])(
    'refuses %s: told in the stack’s channel, audited, nothing else changes',
    async (_case, stack, state, userId, reason, message) => {
      const w = await world();
      const run = await w.run(stack, state, { message: true });
      const before = w.snapshot(run.id);
      const told = tellFor(w);
      await handleRejectSubmission(w.deps, submission(run.id, userId, 'no'), told.tellFor);
      expect(told.stacks).toEqual([stack]);
      expect(w.told).toEqual([expect.stringMatching(message)]);
      expect(await w.store.listAudit({ runId: run.id })).toMatchObject([
        { action: 'reject_refused', actor: userId, detail: { reason, state } },
      ]);
      expect(w.snapshot(run.id)).toEqual(before);
      expect(await w.store.isSnoozed(stack, (await w.store.getRun(run.id))!.fingerprint!, w.app.now.value)).toBe(false);
    },
  );

  it('drops a submission for an unknown run or a stack no longer configured, silently and without a trace', async () => {
    const w = await world();
    const gone = await w.run(GONE, 'drifted');
    const told = tellFor(w);
    await handleRejectSubmission(w.deps, submission('r_missing', LEAD1, 'x'), told.tellFor);
    await handleRejectSubmission(w.deps, submission(gone.id, LEAD1, 'x'), told.tellFor);
    expect(told.stacks).toEqual([]);
    expect(w.told).toEqual([]);
    expect(await w.audit()).toEqual([]);
    expect((await w.store.getRun(gone.id))?.state).toBe('drifted');
  });
});
