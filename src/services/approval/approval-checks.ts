import type { Stack } from '../../domain/stack.js';
import { describeGroups, notInGroup } from '../../domain/approvals/evaluate.js';
import type { ApprovalRefusal, ApprovalRequirement } from '../../domain/approvals/model.js';
import { requirementFor } from '../../domain/approvals/requirement.js';
import { DriftgateError, errorMessage } from '../../domain/errors.js';
import type { Run } from '../../domain/run/model.js';
import { UNDECIDED, type RunState } from '../../domain/run/state.js';
import type { ApprovalServiceDeps } from './approval-deps.js';

/** The states in which a person can still approve or reject a run. */
export const DECIDABLE: readonly RunState[] = UNDECIDED;

export type DecisionRefusalReason =
  | 'not_found'
  | 'not_awaiting'
  | 'expired'
  | 'slack_unavailable'
  /** The author of the change could not be looked up (GitHub down): not knowing is a no. */
  | 'author_unknown'
  /** A policy denies the plan: it cannot be applied from Slack. */
  | 'denied'
  | ApprovalRefusal['reason'];

export interface DecisionRefusal {
  status: 'refused';
  reason: DecisionRefusalReason;
  /** Written for the person who clicked. */
  message: string;
  run?: Run;
}

export interface DecisionRights {
  requirement: ApprovalRequirement;
  rule: number;
  userGroups: string[];
}

/** The run, when it belongs to the stack and still waits for a decision. */
export async function decidableRun(
  deps: ApprovalServiceDeps,
  stack: Stack,
  runId: string,
): Promise<Run | DecisionRefusal> {
  const run = await deps.store.getRun(runId);
  if (!run || run.stack !== stack.name) {
    return { status: 'refused', reason: 'not_found', message: `There is no run ${runId} for stack ${stack.name}.` };
  }
  if (!DECIDABLE.includes(run.state))
    return { status: 'refused', reason: 'not_awaiting', message: notAwaitingMessage(run), run };
  return run;
}

function notAwaitingMessage(run: Run): string {
  switch (run.state) {
    case 'approved':
    case 'applying':
      return 'This plan has already been approved and is being applied.';
    case 'applied':
      return 'This plan has already been applied.';
    case 'rejected':
      return 'This plan was rejected; it can no longer be approved.';
    case 'superseded':
      return 'A newer plan replaced this one: decide on the newer message.';
    case 'expired':
      return 'This plan has expired; a new plan is needed.';
    default:
      return `This run is ${run.state.replace(/_/g, ' ')}: there is nothing to decide.`;
  }
}

/**
 * Whether the user may approve or reject runs of the stack: a rule must cover the stack, and the user must
 * be in one of its groups. When Slack cannot tell us the user's groups, the answer is no, with the reason.
 */
export async function decisionRights(
  deps: Pick<ApprovalServiceDeps, 'approvers' | 'usergroups' | 'logger'>,
  stack: Stack,
  userId: string,
  verb: 'approve' | 'reject',
  /** Groups policies added requirements for: their members may decide too. */
  extraGroups: string[] = [],
): Promise<DecisionRights | DecisionRefusal> {
  const match = requirementFor(stack, deps.approvers);
  if (!match || !deps.approvers) {
    return {
      status: 'refused',
      reason: 'no_rule',
      message: `No approval rule in driftgate's config covers ${stack.name}, so nobody can ${verb} its plans from Slack.`,
    };
  }
  let userGroups: string[];
  try {
    userGroups = await deps.usergroups.groupsOf(userId, deps.approvers, [
      ...new Set([...match.requirement.groups, ...extraGroups]),
    ]);
  } catch (err) {
    if (!(err instanceof DriftgateError && err.code === 'EXTERNAL_SERVICE')) throw err;
    deps.logger.warn({ err: errorMessage(err), stack: stack.name }, 'could not resolve approver groups');
    return {
      status: 'refused',
      reason: 'slack_unavailable',
      message: `driftgate could not check with Slack whether you are in ${describeGroups(match.requirement.groups)}, so nothing was done. Please try again in a minute.`,
    };
  }
  const outsider = notInGroup(
    { ...match.requirement, groups: [...new Set([...match.requirement.groups, ...extraGroups])] },
    userGroups,
    verb,
  );
  if (outsider) return { status: 'refused', ...outsider };
  return { requirement: match.requirement, rule: match.rule, userGroups };
}

/**
 * Whether the user may approve the plans of at least one stack: what it takes to see what driftgate
 * knows across stacks (who changed which cloud resource). When Slack cannot say, the answer is no.
 * `what` names the act in the refusal ("Listing cloud changes").
 */
export async function approvesAnyStack(
  deps: Pick<ApprovalServiceDeps, 'approvers' | 'usergroups' | 'logger'>,
  stacks: readonly Pick<Stack, 'name' | 'environment'>[],
  userId: string,
  what: string,
): Promise<true | DecisionRefusal> {
  const groups = [...new Set(stacks.flatMap((s) => requirementFor(s, deps.approvers)?.requirement.groups ?? []))];
  if (!deps.approvers || groups.length === 0)
    return {
      status: 'refused',
      reason: 'no_rule',
      message: `${what} takes someone who may approve a stack's plans, and no approval rule covers any stack.`,
    };
  try {
    const userGroups = await deps.usergroups.groupsOf(userId, deps.approvers, groups);
    if (userGroups.some((g) => groups.includes(g))) return true;
  } catch (err) {
    if (!(err instanceof DriftgateError && err.code === 'EXTERNAL_SERVICE')) throw err;
    deps.logger.warn({ err: errorMessage(err) }, 'could not resolve approver groups');
    return {
      status: 'refused',
      reason: 'slack_unavailable',
      message: `driftgate could not check with Slack whether you may approve a stack's plans. Try again in a minute.`,
    };
  }
  return {
    status: 'refused',
    reason: 'not_in_group',
    message: `${what} takes someone who may approve a stack's plans (${describeGroups(groups)}).`,
  };
}

/** Records a refused click in the audit log and hands the refusal back. */
export async function auditRefusal<T extends DecisionRefusal>(
  deps: ApprovalServiceDeps,
  action: 'approve_refused' | 'reject_refused',
  context: { stack: string; runId: string; userId: string; run?: Run },
  refusal: T,
): Promise<T> {
  await deps.store.appendAudit({
    at: deps.now(),
    actor: context.userId,
    action,
    runId: context.runId,
    stack: context.stack,
    planSha256: context.run?.planSha256 ?? refusal.run?.planSha256,
    detail: {
      reason: refusal.reason,
      message: refusal.message,
      state: (refusal.run ?? context.run)?.state,
      ...(deps.via ? { via: deps.via } : {}),
    },
  });
  return refusal;
}
