import { describeGroups } from './evaluate.js';
import type { Approval, ApprovalDecision, ApprovalProgress, ApprovalRequirement } from './model.js';

export interface ApprovalsRequest {
  /** Every requirement must be met: the approvers rule's, then those policies added. */
  requirements: ApprovalRequirement[];
  existing: Approval[];
  userId: string;
  /** Approver groups the user belongs to (among every requirement's groups). */
  userGroups: string[];
  /** Slack users who authored the change: none of them may approve it. */
  authorSlackIds?: string[];
}

/** An approval counts toward a requirement when the approver was in one of its groups. */
function countsToward(approval: Pick<Approval, 'groups'>, requirement: ApprovalRequirement): boolean {
  return approval.groups === undefined || approval.groups.some((g) => requirement.groups.includes(g));
}

/** Distinct approvers in order, and for each requirement how many of them count toward it. */
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
    if (got < requirement.count) missing.push({ count: requirement.count - got, groups: requirement.groups, ...(requirement.source ? { source: requirement.source } : {}) });
  }
  const need = requirements.reduce((n, r) => n + r.count, 0);
  return { have, need, approvers: approvals.map((a) => a.userId), missing };
}

/** `2 from sre-leads and 1 from senior`. */
export function describeMissing(missing: NonNullable<ApprovalProgress['missing']>): string {
  return missing.map((m) => `${m.count} from ${describeGroups(m.groups)}`).join(' and ');
}

/**
 * Whether a click counts, when a plan needs several kinds of approval (the approvers rule, and what
 * policies add, such as 1 from `senior` for more than 5 destroys). A person counts once, toward every
 * requirement one of their groups serves; a click that would only add to requirements already met is
 * refused, saying what is still needed; the author of the change never approves it.
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
  const allGroups = [...new Set(requirements.flatMap((r) => r.groups))];
  if (!allGroups.some((g) => userGroups.includes(g))) {
    const them = allGroups.length > 1 ? 'any of them' : 'it';
    return { ok: false, reason: 'not_in_group', message: `Only members of ${describeGroups(allGroups)} can approve this plan, and you are not in ${them}.` };
  }
  if (authorSlackIds.includes(userId)) {
    return { ok: false, reason: 'author', message: 'You authored this change, so you cannot approve it yourself: someone else has to review it.' };
  }
  const mine: Approval = { runId: '', userId, at: new Date(8.64e15), groups: userGroups };
  const helps = (before.missing ?? []).some((m) => m.groups.some((g) => userGroups.includes(g)));
  if (!helps) {
    return { ok: false, reason: 'not_needed', message: `The approvals your groups can give are complete; still needed: ${describeMissing(before.missing ?? [])}.` };
  }
  const progress = progressOf(requirements, [...existing, mine]);
  return { ok: true, progress, complete: (progress.missing ?? []).length === 0 };
}
