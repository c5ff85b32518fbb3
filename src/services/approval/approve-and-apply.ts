import type { Run } from '../../domain/run/model.js';
import type { Stack } from '../../domain/stack.js';
import type { ApplyOutcome } from '../apply/apply-saved-plan.js';
import type { ApprovalServiceDeps } from './approval-deps.js';
import { approveRun, type ApproveOutcome } from './approve-run.js';

export interface ApproveAndApplyDeps extends ApprovalServiceDeps {
  /** The apply use case (applyApprovedRun, in the stack's turn), for the approval that completes a run's. */
  apply(run: Run, actor: string): Promise<ApplyOutcome | undefined>;
}

/**
 * One approval, from a Slack click or `driftgate approve`, and the apply when it is the last one needed.
 * `answer` hears the outcome before the apply starts: the person learns at once that it begins, not once
 * terraform is done. Of concurrent completing approvals exactly one applies (approveRun's compare-and-set).
 */
export async function approveAndApply(
  deps: ApproveAndApplyDeps,
  stack: Stack,
  runId: string,
  userId: string,
  answer?: (outcome: ApproveOutcome) => Promise<void>,
): Promise<{ outcome: ApproveOutcome; applied?: ApplyOutcome }> {
  const outcome = await approveRun(deps, stack, runId, userId);
  await answer?.(outcome);
  if (outcome.status !== 'complete') return { outcome };
  const applied = await deps.apply(outcome.run, userId);
  return { outcome, ...(applied ? { applied } : {}) };
}
