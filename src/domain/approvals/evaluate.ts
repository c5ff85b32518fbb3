import type { Approval, ApprovalDecision, ApprovalProgress, ApprovalRefusal, ApprovalRequirement } from './model.js';

export interface ApprovalsRequest {
  /** Every requirement must be met: the approvers rule's, then those policies added. */
  requirements: ApprovalRequirement[];
  /** Approvals already recorded for the run. */
  existing: Approval[];
  /** The Slack user who clicked. */
  userId: string;
  /** Approver group names the user belongs to (among every requirement's groups). */
  userGroups: string[];
  /** Slack users who authored the change: none of them may approve it. */
  authorSlackIds?: string[];
}

/** One requirement: the approvers rule alone. */
export interface ApprovalRequest extends Omit<ApprovalsRequest, 'requirements' | 'authorSlackIds'> {
  requirement: ApprovalRequirement;
  /** Slack user id of the change's author, when known: they may never approve their own change. */
  authorSlackId?: string;
}

/** An approval counts toward a requirement when the approver was in one of its groups. */
function countsToward(approval: Pick<Approval, 'groups'>, requirement: ApprovalRequirement): boolean {
  return approval.groups === undefined || approval.groups.some((g) => requirement.groups.includes(g));
}

/** Distinct approvers in the order they approved, and for each requirement how many of them count toward it. */
export function progressOf(requirements: ApprovalRequirement[], existing: Approval[]): ApprovalProgress {
  const ordered = [...existing].sort((a, b) => a.at.getTime() - b.at.getTime());
  const firstOf = new Map<string, Approval>();
  for (const approval of ordered) if (!firstOf.has(approval.userId)) firstOf.set(approval.userId, approval);
  const approvals = [...firstOf.values()];
  let have = 0;
  const missing: NonNullable<ApprovalProgress['missing']> = [];
  for (const requirement of requirements) {
    const got = approvals.filter((a) => countsToward(a, requirement)).length;
    have += Math.min(got, requirement.count);
    if (got < requirement.count)
      missing.push({
        count: requirement.count - got,
        groups: requirement.groups,
        ...(requirement.source ? { source: requirement.source } : {}),
      });
  }
  const need = requirements.reduce((n, r) => n + r.count, 0);
  return { have, need, approvers: approvals.map((a) => a.userId), missing };
}

/** `2 from sre-leads and 1 from senior`. */
export function describeMissing(missing: NonNullable<ApprovalProgress['missing']>): string {
  return missing.map((m) => `${m.count} from ${describeGroups(m.groups)}`).join(' and ');
}

/**
 * Whether a click counts as an approval, when a plan needs one or several kinds of approval (the approvers
 * rule, and what policies add, such as 1 from `senior` for more than 5 destroys). A person counts once,
 * toward every requirement one of their groups serves, and never approves a change they authored: a
 * two-person rule really takes two people. A click that would only add to requirements already met is
 * refused, saying what is still needed. Messages are written for the person who clicked.
 */
export function evaluateApprovals(request: ApprovalsRequest): ApprovalDecision {
  const { requirements, existing, userId, userGroups, authorSlackIds = [] } = request;
  const before = progressOf(requirements, existing);
  if (before.approvers.includes(userId)) {
    return {
      ok: false,
      reason: 'already_approved',
      message: `You have already approved this plan (${before.have}/${before.need}); the remaining approvals have to come from other people.`,
    };
  }
  const outsider = notInGroup({ count: 0, groups: [...new Set(requirements.flatMap((r) => r.groups))] }, userGroups);
  if (outsider) return { ok: false, ...outsider };
  if (authorSlackIds.includes(userId)) {
    return {
      ok: false,
      reason: 'author',
      message: 'You authored this change, so you cannot approve it yourself: someone else has to review it.',
    };
  }
  const helps = (before.missing ?? []).some((m) => m.groups.some((g) => userGroups.includes(g)));
  if (!helps) {
    return {
      ok: false,
      reason: 'not_needed',
      message: `The approvals your groups can give are complete; still needed: ${describeMissing(before.missing ?? [])}.`,
    };
  }
  const mine: Approval = { runId: '', userId, at: new Date(8.64e15), groups: userGroups };
  const progress = progressOf(requirements, [...existing, mine]);
  return { ok: true, progress, complete: (progress.missing ?? []).length === 0 };
}

/** evaluateApprovals for the approvers rule alone. */
export function evaluateApproval(request: ApprovalRequest): ApprovalDecision {
  const { requirement, authorSlackId, ...rest } = request;
  return evaluateApprovals({
    ...rest,
    requirements: [requirement],
    ...(authorSlackId ? { authorSlackIds: [authorSlackId] } : {}),
  });
}

/**
 * The refusal for a user in none of the required groups, or undefined when they may decide. Approving and
 * rejecting take the same membership (the author of a change may still reject it).
 */
export function notInGroup(
  requirement: ApprovalRequirement,
  userGroups: string[],
  verb = 'approve',
): ApprovalRefusal | undefined {
  if (requirement.groups.some((g) => userGroups.includes(g))) return undefined;
  const them = requirement.groups.length > 1 ? 'any of them' : 'it';
  return {
    reason: 'not_in_group',
    message: `Only members of ${describeGroups(requirement.groups)} can ${verb} this plan, and you are not in ${them}.`,
  };
}

/** `sre-leads`, `sre-leads or platform`, `a, b or c`: how the groups read in a sentence. */
export function describeGroups(groups: string[]): string {
  if (groups.length <= 1) return groups[0] ?? 'no group';
  return `${groups.slice(0, -1).join(', ')} or ${groups[groups.length - 1]}`;
}
