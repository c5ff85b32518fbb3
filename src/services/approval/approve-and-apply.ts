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
 * The outcome comes back as soon as the approval is recorded, with the apply (when this approval completes
 * the run's) already started as `applying`: the person learns at once that it begins, not once terraform
 * is done, and nothing but this service starts it. Of concurrent completing approvals exactly one applies
 * (approveRun's compare-and-set).
 */
export async function approveAndApply(
  deps: ApproveAndApplyDeps,
  stack: Stack,
  runId: string,
  userId: string,
): Promise<{ outcome: ApproveOutcome; applying?: Promise<ApplyOutcome | undefined> }> {
  const outcome = await approveRun(deps, stack, runId, userId);
  if (outcome.status !== 'complete') return { outcome };
  return { outcome, applying: deps.apply(outcome.run, userId) };
}
