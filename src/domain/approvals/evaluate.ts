import type { Approval, ApprovalDecision, ApprovalProgress, ApprovalRefusal, ApprovalRequirement } from './model.js';

export interface ApprovalRequest {
  requirement: ApprovalRequirement;
  /** Approvals already recorded for the run. */
  existing: Approval[];
  /** The Slack user who clicked. */
  userId: string;
  /** Approver group names the user belongs to (resolved from `approvers.groups`). */
  userGroups: string[];
  /** Slack user id of the change's author, when known: they may never approve their own change. */
  authorSlackId?: string;
}

/**
 * Whether a click counts as an approval. A user counts once, must be in one of the required groups, and
 * is never the author of the change: a two-person rule really takes two people. Messages are written
 * for the person who clicked.
 */
export function evaluateApproval(request: ApprovalRequest): ApprovalDecision {
  const { requirement, existing, userId, userGroups, authorSlackId } = request;
  const before = approvalProgress(requirement, existing);
  if (before.approvers.includes(userId)) {
    return {
      ok: false,
      reason: 'already_approved',
      message: `You have already approved this plan (${before.have}/${before.need}); the remaining approvals have to come from other people.`,
    };
  }
  const outsider = notInGroup(requirement, userGroups);
  if (outsider) return { ok: false, ...outsider };
  if (authorSlackId !== undefined && authorSlackId === userId) {
    return {
      ok: false,
      reason: 'author',
      message: 'You authored this change, so you cannot approve it yourself: someone else has to review it.',
    };
  }
  const progress: ApprovalProgress = { ...before, have: before.have + 1, approvers: [...before.approvers, userId] };
  return { ok: true, progress, complete: progress.have >= progress.need };
}

/**
 * The refusal for a user in none of the required groups, or undefined when they may decide. Approving and
 * rejecting take the same membership (the author of a change may still reject it).
 */
export function notInGroup(requirement: ApprovalRequirement, userGroups: string[], verb = 'approve'): ApprovalRefusal | undefined {
  if (requirement.groups.some((g) => userGroups.includes(g))) return undefined;
  const them = requirement.groups.length > 1 ? 'any of them' : 'it';
  return {
    reason: 'not_in_group',
    message: `Only members of ${describeGroups(requirement.groups)} can ${verb} this plan, and you are not in ${them}.`,
  };
}

/** Distinct approvers so far, in the order they approved. */
export function approvalProgress(requirement: ApprovalRequirement, existing: Approval[]): ApprovalProgress {
  const approvers = [...new Set([...existing].sort((a, b) => a.at.getTime() - b.at.getTime()).map((a) => a.userId))];
  return { have: approvers.length, need: requirement.count, approvers };
}

/** `sre-leads`, `sre-leads or platform`, `a, b or c`: how the groups read in a sentence. */
export function describeGroups(groups: string[]): string {
  if (groups.length <= 1) return groups[0] ?? 'no group';
  return `${groups.slice(0, -1).join(', ')} or ${groups[groups.length - 1]}`;
}
