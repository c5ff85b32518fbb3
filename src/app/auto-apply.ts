/**
 * Modes `auto-minor` and `auto-apply`: after a check, a plan the stack's mode and its policies allow is
 * applied without a person, through the same path as an approved one (the scheduler, the saved plan's
 * sha256, a verification plan), posted to Slack and audited with the mode as the actor.
 */
import type { Stack } from '../domain/stack.js';
import { automaticApply } from '../domain/policy/automatic.js';
import type { Run } from '../domain/run/model.js';
import { applyRunFromSource } from '../services/apply-run-from-source.js';
import type { CheckOutcome } from '../services/check-stack.js';
import type { ServiceDeps } from '../services/deps.js';
import type { SourceDeps } from '../services/resolve-stack-at-commit.js';
import type { Scheduler } from '../services/scheduler.js';

export interface AutoApplyDeps {
  services: ServiceDeps & Partial<SourceDeps>;
  scheduler: Pick<Scheduler<CheckOutcome>, 'exclusive'>;
  stack(name: string): Stack | undefined;
  /** The Slack app's applier, which keeps the run's message current; plain applyRun without Slack. */
  apply?: (run: Run, actor: string) => Promise<unknown>;
}

/**
 * An earlier run with the same changes (fingerprint) that was applied automatically: applying again
 * would loop on a change that does not stick (a provider's perpetual diff, something reverting it).
 */
function cameBack(deps: AutoApplyDeps, stack: string, run: Run): string | undefined {
  const earlier = deps.services.store.listRuns({ stack, limit: 50 }).filter((r) => r.id !== run.id && r.fingerprint === run.fingerprint);
  return earlier.find((r) => deps.services.store.listAudit({ runId: r.id }).some((a) => a.action === 'auto_apply_started'))?.id;
}

/** Decides, audits the decision, and starts the apply when allowed; never waits for it (the caller is a check job). */
export function autoApplyAfterCheck(deps: AutoApplyDeps, outcome: CheckOutcome): void {
  if (outcome.status !== 'drifted' && outcome.status !== 'pending_approval') return;
  const stack = deps.stack(outcome.stack);
  if (!stack || stack.mode === 'alert') return;
  const returned = cameBack(deps, stack.name, outcome.run);
  const decision = returned
    ? { apply: false as const, reason: `the same changes were applied automatically in run ${returned} and came back: a person should look` }
    : automaticApply(stack.mode, outcome.analysis, outcome.policy);
  const actor = `driftgate:${stack.mode}`;
  deps.services.store.appendAudit({
    at: deps.services.now(),
    actor,
    action: decision.apply ? 'auto_apply_started' : 'auto_apply_declined',
    runId: outcome.run.id,
    stack: stack.name,
    planSha256: outcome.run.planSha256,
    detail: { reason: decision.reason, rules: outcome.policy?.fired ?? [] },
  });
  if (!decision.apply) return;
  const run = outcome.run;
  const apply = deps.apply ?? ((r: Run, who: string) => deps.scheduler.exclusive(stack.name, () => applyRunFromSource(deps.services, stack, r.id, who)));
  apply(run, actor).catch((err: unknown) => deps.services.logger.error({ err, runId: run.id, stack: stack.name }, 'automatic apply failed'));
}
