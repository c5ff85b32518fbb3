import type { Stack } from '../../domain/stack.js';
import { formatDuration } from '../../domain/duration.js';
import { evaluateApprovals } from '../../domain/approvals/evaluate.js';
import type { ApprovalProgress } from '../../domain/approvals/model.js';
import { allRequirements, authorSlackId } from '../../domain/approvals/requirement.js';
import { DriftgateError } from '../../domain/errors.js';
import type { Run } from '../../domain/run/model.js';
import { planAgeMs, planExpired } from '../../domain/run/plan-age.js';
import type { ApprovalServiceDeps } from './approval-deps.js';
import { announceExpiredPlan } from '../apply/expire-plan.js';
import {
  DECIDABLE,
  auditRefusal,
  decidableRun,
  decisionRights,
  type DecisionRefusal,
  type DecisionRights,
} from './approval-checks.js';
import type { PolicyEvaluation } from '../../domain/policy/model.js';

export type ApproveOutcome =
  /** Nothing changed but the audit log; `message` is for the person who clicked. */
  | DecisionRefusal
  /** The approval counts; more are needed. */
  | { status: 'recorded'; run: Run; progress: ApprovalProgress }
  /** The last required approval: the run is `approved`, and approveAndApply applies it. */
  | { status: 'complete'; run: Run; progress: ApprovalProgress };

/**
 * One click on Approve. Refused (and audited) when the run no longer waits for a decision, when its plan
 * is too old to trust (the run becomes `expired` and a new plan is asked for), when no rule covers the stack,
 * or when the user may not approve. Otherwise the approval is recorded (`approval_recorded`); the one that
 * completes the requirement moves the run to `approved` by compare-and-set (`approval_completed`), so of
 * several concurrent completing clicks exactly one wins.
 */
export async function approveRun(
  deps: ApprovalServiceDeps,
  stack: Stack,
  runId: string,
  userId: string,
): Promise<ApproveOutcome> {
  const context = { stack: stack.name, runId, userId };
  const refuse = (refusal: DecisionRefusal, run?: Run) =>
    auditRefusal(deps, 'approve_refused', { ...context, run }, refusal);

  const run = await decidableRun(deps, stack, runId);
  if ('status' in run) return await refuse(run);
  const policy = await deps.policyOf?.(run);
  // Rights first: a click by someone who may not approve changes nothing, not even an old plan's state.
  const rights = await decisionRights(
    deps,
    stack,
    userId,
    'approve',
    (policy?.approvals ?? []).flatMap((a) => a.from),
  );
  if ('status' in rights) return await refuse(rights, run);
  if (policy?.denied) {
    const why = policy.findings.filter((f) => f.effect === 'deny').map((f) => `${f.rule}: ${f.message}`);
    return await refuse({
      status: 'refused',
      reason: 'denied',
      message: `A policy denies this plan, so it cannot be applied from Slack. ${why.join('; ')}`,
      run,
    });
  }
  if (planExpired(run, deps.now(), deps.maxPlanAgeMs)) {
    const age = planAgeMs(run, deps.now());
    const expired = await deps.store.transition(run.id, DECIDABLE, 'expired', { error: 'plan older than maxPlanAge' });
    // "An approval for a plan older than maxPlanAge is refused, a new plan is run and posted."
    if (expired) await announceExpiredPlan(deps, expired, { stale: false });
    return await refuse({
      status: 'refused',
      reason: 'expired',
      run: expired ?? (await deps.store.getRun(run.id)),
      message: `This plan is ${formatDuration(age)} old, older than the ${formatDuration(deps.maxPlanAgeMs)} a plan may be applied within: the infrastructure may have changed since. A new plan is needed.`,
    });
  }

  let login: string | string[] | undefined;
  try {
    login = await deps.authorOf?.(run);
  } catch (err) {
    if (!(err instanceof DriftgateError && (err.code === 'EXTERNAL_SERVICE' || err.code === 'AUTHORS_UNKNOWN')))
      throw err;
    // The author must never approve their own change, so not knowing the author is a no. AuthorsUnknownError
    // says why and what to do; another service's failure is worth a retry.
    return await refuse({
      status: 'refused',
      reason: 'author_unknown',
      message:
        err.code === 'AUTHORS_UNKNOWN'
          ? err.message
          : 'driftgate could not find out who authored this change, so nothing was approved. Please try again in a minute.',
      run,
    });
  }
  // Every identity of every author of the change (commit emails, GitHub logins) that maps to a Slack user.
  const authors = (Array.isArray(login) ? login : login ? [login] : [])
    .map((id) => authorSlackId(deps.approvers, id))
    .filter((id): id is string => Boolean(id));

  // From here on one transaction: no other click interleaves in this process (the SQLite store runs one
  // transaction at a time); across processes the store's compare-and-set decides.
  const settled = await deps.store.atomically((tx) =>
    decide({ ...deps, store: tx }, stack, runId, userId, { authors, rights, policy }),
  );
  if ('refusal' in settled) return await refuse(settled.refusal);
  const { outcome } = settled;
  // Once committed: whoever shows the run (its Slack message) reads the approval it renders from the store.
  if (outcome.status !== 'refused')
    await deps.bus.publish({
      type: outcome.status === 'recorded' ? 'approval_recorded' : 'approval_completed',
      stack: stack.name,
      run: outcome.run,
      actor: userId,
      progress: outcome.progress,
    });
  return outcome;
}

/** Records the approval and, when it completes the requirement, approves the run; writes only through deps.store. */
async function decide(
  deps: ApprovalServiceDeps,
  stack: Stack,
  runId: string,
  userId: string,
  checked: { authors: string[]; rights: DecisionRights; policy: PolicyEvaluation | undefined },
): Promise<{ refusal: DecisionRefusal } | { outcome: ApproveOutcome }> {
  const { authors, rights, policy } = checked;
  const current = await decidableRun(deps, stack, runId);
  if ('status' in current) return { refusal: current };
  const decision = evaluateApprovals({
    requirements: allRequirements(rights, policy?.approvals),
    existing: await deps.store.listApprovals(runId),
    userId,
    userGroups: rights.userGroups,
    authorSlackIds: authors,
  });
  if (!decision.ok) {
    const { ok: _, ...refusal } = decision;
    return { refusal: { status: 'refused', ...refusal, run: current } };
  }
  if (!(await deps.store.addApproval({ runId, userId, at: deps.now(), groups: rights.userGroups }))) {
    return {
      refusal: {
        status: 'refused',
        reason: 'already_approved',
        message: 'You have already approved this plan.',
        run: current,
      },
    };
  }
  await deps.store.appendAudit({
    at: deps.now(),
    actor: userId,
    action: 'approved',
    runId,
    stack: stack.name,
    planSha256: current.planSha256,
    detail: {
      have: decision.progress.have,
      need: decision.progress.need,
      rule: rights.rule,
      groups: rights.userGroups,
      ...(deps.via ? { via: deps.via } : {}),
    },
  });
  if (!decision.complete) return { outcome: { status: 'recorded', run: current, progress: decision.progress } };

  const approved = await deps.store.transition(runId, DECIDABLE, 'approved');
  if (!approved) {
    // Another process moved the run between our read and our write: its outcome stands.
    const moved = await decidableRun(deps, stack, runId);
    if ('status' in moved) return { outcome: { ...moved } };
    return {
      outcome: {
        status: 'refused',
        reason: 'not_awaiting',
        message: 'This plan changed while you approved it; please try again.',
        run: moved,
      },
    };
  }
  return { outcome: { status: 'complete', run: approved, progress: decision.progress } };
}
