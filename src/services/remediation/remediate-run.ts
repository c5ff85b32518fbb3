import { errorMessage, failureReason } from '../../domain/errors.js';
import type { RemediationResult } from '../../domain/events.js';
import type { Run } from '../../domain/run/model.js';
import type { Stack } from '../../domain/stack.js';
import type { ServiceDeps } from '../runtime/deps.js';
import {
  openRemediationPr,
  type RemediationDeps,
  type RemediationOutcome,
  type RemediationRequest,
} from './open-remediation-pr.js';

export interface RemediateDeps extends RemediationDeps, Pick<ServiceDeps, 'bus'> {
  /** Runs work on a stack in its turn, never beside a check of it (Scheduler.exclusive). */
  exclusive<U>(stack: string, work: (signal?: AbortSignal) => Promise<U>): Promise<U>;
  /** Checks the stack now (after a merged PR, which may have resolved its drift). */
  checkNow(stack: string): Promise<unknown>;
}

/**
 * A remediation PR a person asked for, as exclusive work on the stack (its worktree and terraform init
 * never beside a check), which also makes a double click find the PR the first one opened; what came of it
 * is published as `remediation_answered`. A failure is audited as `remediation_failed` and thrown on for
 * the caller to tell; a drift with nothing to codify is audited as such.
 */
export async function remediateRun(
  deps: RemediateDeps,
  stack: Stack,
  run: Run,
  request: Omit<RemediationRequest, 'signal'>,
): Promise<RemediationOutcome> {
  const audit = (action: string, detail: Record<string, unknown>) =>
    deps.store.appendAudit({ at: deps.now(), actor: request.actor, action, runId: run.id, stack: stack.name, detail });
  const answered = (answeredRun: Run, result: RemediationResult) =>
    deps.bus.publish({
      type: 'remediation_answered',
      stack: stack.name,
      run: answeredRun,
      actor: request.actor,
      result,
    });
  let outcome: RemediationOutcome;
  try {
    outcome = await deps.exclusive(stack.name, (signal) => openRemediationPr(deps, stack, run, { ...request, signal }));
  } catch (err) {
    await audit('remediation_failed', { error: failureReason(err) });
    throw err;
  }
  switch (outcome.status) {
    case 'opened':
    case 'existing':
      // The message shows the PR's link from now on: rendered from the run as it is now.
      await answered((await deps.store.getRun(run.id)) ?? run, { status: outcome.status, record: outcome.record });
      break;
    case 'merged':
      await answered(run, { status: 'merged', record: outcome.record });
      // The merge may have resolved the drift: find out now rather than at the next scheduled check.
      deps
        .checkNow(stack.name)
        .catch((err: unknown) =>
          deps.logger.warn(
            { stack: stack.name, error: errorMessage(err) },
            'check after a merged remediation PR failed',
          ),
        );
      break;
    case 'nothing_to_codify':
      await audit('remediation_nothing_to_codify', { left: outcome.skipped.length });
      await answered(run, { status: 'nothing_to_codify', skipped: outcome.skipped });
      break;
  }
  return outcome;
}
