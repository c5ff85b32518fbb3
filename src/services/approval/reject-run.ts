import type { Stack } from '../../domain/stack.js';
import type { Run } from '../../domain/run/model.js';
import type { ApprovalServiceDeps } from './approval-deps.js';
import { DECIDABLE, auditRefusal, decidableRun, decisionRights, type DecisionRefusal } from './approval-checks.js';

export type RejectOutcome =
  | DecisionRefusal
  /** `snoozedUntil`: the same drift (fingerprint) does not alert again before then. */
  | { status: 'rejected'; run: Run; reason?: string; snoozedUntil?: Date };

/** A reason is free text from Slack: kept short, and masked like everything else driftgate writes. */
const MAX_REASON = 500;

/**
 * One click on Reject. Only people who could approve the run may reject it (its author may: saying no to
 * one's own change is always safe). The run ends `rejected` by compare-and-set and its fingerprint is
 * snoozed for `defaults.snooze`, so the same drift does not alert again meanwhile; published as `rejected`.
 */
export async function rejectRun(
  deps: ApprovalServiceDeps,
  stack: Stack,
  runId: string,
  userId: string,
  reason?: string,
): Promise<RejectOutcome> {
  const context = { stack: stack.name, runId, userId };
  const refuse = (refusal: DecisionRefusal, run?: Run) =>
    auditRefusal(deps, 'reject_refused', { ...context, run }, refusal);

  const run = await decidableRun(deps, stack, runId);
  if ('status' in run) return await refuse(run);
  const rights = await decisionRights(deps, stack, userId, 'reject');
  if ('status' in rights) return await refuse(rights, run);

  const text = reason?.trim() ? deps.secrets.redact(reason.trim(), stack.name).slice(0, MAX_REASON) : undefined;
  const rejected = await deps.store.transition(runId, DECIDABLE, 'rejected');
  if (!rejected) {
    const moved = await decidableRun(deps, stack, runId);
    return await refuse(
      'status' in moved
        ? moved
        : { status: 'refused', reason: 'not_awaiting', message: 'This plan changed meanwhile; please try again.' },
    );
  }
  let snoozedUntil: Date | undefined;
  if (rejected.fingerprint) {
    snoozedUntil = new Date(deps.now().getTime() + deps.snoozeMs);
    await deps.store.snooze(stack.name, rejected.fingerprint, snoozedUntil);
  }
  await deps.store.appendAudit({
    at: deps.now(),
    actor: userId,
    action: 'rejected',
    runId,
    stack: stack.name,
    planSha256: rejected.planSha256,
    detail: {
      reason: text,
      snoozedUntil: snoozedUntil?.toISOString(),
      fingerprint: rejected.fingerprint,
      ...(deps.via ? { via: deps.via } : {}),
    },
  });
  await deps.bus.publish({
    type: 'rejected',
    stack: stack.name,
    run: rejected,
    actor: userId,
    ...(text ? { reason: text } : {}),
    ...(snoozedUntil ? { snoozedUntil } : {}),
  });
  return { status: 'rejected', run: rejected, reason: text, snoozedUntil };
}
