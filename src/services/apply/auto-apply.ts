/**
 * Modes `auto-minor` and `auto-apply`: after a check, a plan the stack's mode and its policies allow is
 * applied without a person, through the same use case as an approved one (applyApprovedRun: the stack's
 * turn, the saved plan's sha256, a verification plan, the events Slack renders), audited with the mode
 * as the actor.
 */
import { automaticApply } from '../../domain/policy/automatic.js';
import type { Run } from '../../domain/run/model.js';
import type { ApplyDeps } from './apply-approved-run.js';
import type { CheckOutcome } from '../check/check-stack.js';

/**
 * An earlier run with the same changes (fingerprint) that was applied automatically: applying again
 * would loop on a change that does not stick (a provider's perpetual diff, something reverting it).
 */
async function cameBack(deps: Pick<ApplyDeps, 'store'>, stack: string, run: Run): Promise<string | undefined> {
  const earlier = (await deps.store.listRuns({ stack, limit: 50 })).filter(
    (r) => r.id !== run.id && r.fingerprint === run.fingerprint,
  );
  for (const r of earlier) {
    if ((await deps.store.listAudit({ runId: r.id })).some((a) => a.action === 'auto_apply_started')) return r.id;
  }
  return undefined;
}

/**
 * Decides, audits the decision, and applies when allowed; settles when the apply ends. Run it as a job,
 * never awaited by the check: the apply waits for that check to end.
 */
export async function autoApplyAfterCheck(
  deps: Omit<ApplyDeps, 'exclusive'>,
  outcome: CheckOutcome,
  /** How the apply runs: in this process, or as a job for a worker of the stack's pool. */
  apply: (run: Run, actor: string) => Promise<unknown>,
): Promise<unknown> {
  if (outcome.status !== 'drifted' && outcome.status !== 'pending_approval') return undefined;
  const stack = deps.stack(outcome.stack);
  if (!stack || stack.mode === 'alert') return undefined;
  const returned = await cameBack(deps, stack.name, outcome.run);
  const decision = returned
    ? {
        apply: false as const,
        reason: `the same changes were applied automatically in run ${returned} and came back: a person should look`,
      }
    : automaticApply(stack.mode, outcome.analysis, outcome.policy);
  const actor = `driftgate:${stack.mode}`;
  await deps.store.appendAudit({
    at: deps.now(),
    actor,
    action: decision.apply ? 'auto_apply_started' : 'auto_apply_declined',
    runId: outcome.run.id,
    stack: stack.name,
    planSha256: outcome.run.planSha256,
    detail: { reason: decision.reason, rules: outcome.policy?.fired ?? [] },
  });
  if (!decision.apply) return undefined;
  const run = outcome.run;
  return apply(run, actor).catch((err: unknown) =>
    deps.logger.error({ err, runId: run.id, stack: stack.name }, 'automatic apply failed'),
  );
}
