/**
 * The one way a run gets applied, whoever decided it: the last approval in Slack, or a stack's automatic
 * mode its policies allow. The apply waits for the stack (never beside a check of it), applies exactly
 * the saved plan that was reviewed, and ends the run in a state that says what happened: applied,
 * apply_failed, expired (a fresh plan is asked for), or errored when it could not start, with the reason.
 * Every step is audited and published as a domain event; Slack and PagerDuty only render those.
 */
import type { Verification } from '../../domain/events.js';
import type { Run } from '../../domain/run/model.js';
import type { SlackStore } from '../../ports/slack-store.js';
import type { RunStore } from '../../ports/store.js';
import { applyAtPlannedCommit } from './apply-at-planned-commit.js';
import type { ApplyOutcome } from './apply-saved-plan.js';
import type { CheckOutcome } from '../check/check-stack.js';
import type { ServiceDeps, StackLookup } from '../runtime/deps.js';
import { announceExpiredPlan, type ExpireDeps } from './expire-plan.js';
import type { SourceDeps } from '../source/resolve-stack-at-commit.js';

export interface ApplyDeps extends ServiceDeps, Partial<Pick<SourceDeps, 'git'>>, ExpireDeps {
  /**
   * Runs work on a stack in its turn, never beside a check of it (Scheduler.exclusive); the signal says
   * the process stops.
   */
  exclusive<U>(stack: string, work: (signal?: AbortSignal) => Promise<U>): Promise<U>;
  stack: StackLookup;
}

function verificationOf(outcome: CheckOutcome): Verification {
  if (outcome.status === 'no_changes') return 'clean';
  if (outcome.status === 'drifted' || outcome.status === 'pending_approval') return 'still_drifting';
  return 'failed';
}

/** Applies a run that is `approved` (or, for an automatic mode, still awaiting a decision); `actor` is who decided. */
export async function applyApprovedRun(deps: ApplyDeps, run: Run, actor: string): Promise<ApplyOutcome | undefined> {
  const stack = deps.stack(run.stack);
  if (!stack) return undefined;
  await deps.bus.publish({ type: 'apply_queued', stack: stack.name, run, actor });
  return deps.exclusive(stack.name, async (signal) => {
    const started = performance.now();
    const outcome = await applyAtPlannedCommit(deps, stack, run.id, actor, signal);
    const durationMs = performance.now() - started;
    await settleApply(deps, run, actor, outcome, durationMs);
    return outcome;
  });
}

/** Publishes how an apply ended, or ends a run whose apply never started with the reason (errored). */
export async function settleApply(
  deps: ServiceDeps & ExpireDeps,
  run: Run,
  actor: string,
  outcome: ApplyOutcome,
  durationMs: number,
): Promise<void> {
  const stack = run.stack;
  if (outcome.status === 'applied' || outcome.status === 'apply_failed') {
    const verification = verificationOf(outcome.verification);
    await deps.bus.publish(
      outcome.status === 'applied'
        ? { type: 'applied', stack, run: outcome.run, actor, durationMs, output: outcome.output, verification }
        : {
            type: 'apply_failed',
            stack,
            run: outcome.run,
            actor,
            durationMs,
            error: outcome.error,
            output: outcome.output,
            verification,
          },
    );
    return;
  }
  // Already told where people look (apply_interrupted), as a crash's is at the next start.
  if (outcome.status === 'interrupted') return;
  // Another path already applies or applied this run: what happens to it is that path's to say.
  if (outcome.code === 'not_applyable' || outcome.code === 'not_found') return;
  // This process stopped while the apply waited for the stack: still approved, applied at the next start.
  if (outcome.code === 'stopping') return;
  // applySavedPlan marked the run expired; a fresh plan gets a message of its own.
  if (outcome.code === 'expired' || outcome.code === 'stale' || outcome.code === 'credentials') {
    await announceExpiredPlan(deps, run, {
      stale: outcome.code === 'stale',
      ...(outcome.code === 'credentials' ? { credentials: true } : {}),
    });
    return;
  }
  const ended =
    (await deps.store.transition(run.id, 'approved', 'errored', { error: `apply did not start: ${outcome.reason}` })) ??
    (await deps.store.getRun(run.id)) ??
    run;
  await deps.store.appendAudit({
    at: deps.now(),
    actor,
    action: 'apply_not_started',
    runId: run.id,
    stack,
    detail: { reason: outcome.reason },
  });
  await deps.bus.publish({
    type: 'apply_not_started',
    stack,
    run: ended,
    actor,
    reason: outcome.reason,
    blocked: outcome.code === 'blocked',
  });
}

/**
 * Runs left `approved` by an earlier stop (the approvals were in, the apply had not started): applied
 * now, as the last approver, so that an approval is never lost to a restart.
 */
export async function approvedRunsLeftOver(
  store: Pick<RunStore, 'listRuns'> & Pick<SlackStore, 'listApprovals'>,
): Promise<{ run: Run; actor: string }[]> {
  const left: { run: Run; actor: string }[] = [];
  for (const run of await store.listRuns({ states: ['approved'] })) {
    left.push({ run, actor: (await store.listApprovals(run.id)).at(-1)?.userId ?? 'system' });
  }
  return left;
}
