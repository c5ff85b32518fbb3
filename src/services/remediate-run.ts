import { failureReason } from '../domain/errors.js';
import type { Run } from '../domain/run/model.js';
import type { Stack } from '../domain/stack.js';
import {
  openRemediationPr,
  type RemediationDeps,
  type RemediationOutcome,
  type RemediationRequest,
} from './open-remediation-pr.js';

export interface RemediateDeps extends RemediationDeps {
  /** Runs work on a stack in its turn, never beside a check of it (Scheduler.exclusive). */
  exclusive<U>(stack: string, work: (signal?: AbortSignal) => Promise<U>): Promise<U>;
}

/**
 * A remediation PR a person asked for, as exclusive work on the stack (its worktree and terraform init
 * never beside a check), which also makes a double click find the PR the first one opened. A failure is
 * audited as `remediation_failed` and thrown on for the door to tell; a drift with nothing to codify is
 * audited as such.
 */
export async function remediateRun(
  deps: RemediateDeps,
  stack: Stack,
  run: Run,
  request: Omit<RemediationRequest, 'signal'>,
): Promise<RemediationOutcome> {
  const audit = (action: string, detail: Record<string, unknown>) =>
    deps.store.appendAudit({ at: deps.now(), actor: request.actor, action, runId: run.id, stack: stack.name, detail });
  let outcome: RemediationOutcome;
  try {
    outcome = await deps.exclusive(stack.name, (signal) => openRemediationPr(deps, stack, run, { ...request, signal }));
  } catch (err) {
    await audit('remediation_failed', { error: failureReason(err) });
    throw err;
  }
  if (outcome.status === 'nothing_to_codify')
    await audit('remediation_nothing_to_codify', { left: outcome.skipped.length });
  return outcome;
}
