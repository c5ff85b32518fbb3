/** What an apply of a stack needs: `count` distinct people, each a member of one of `groups`. */
export interface ApprovalRequirement {
  count: number;
  groups: string[];
  /** Where it comes from, for people: `approvers.rules[0]`, or a policy rule's name. */
  source?: string;
}

export interface Approval {
  runId: string;
  /** Slack user id. */
  userId: string;
  at: Date;
  /** Approver groups the person was in when approving; absent (older records): counts toward every requirement. */
  groups?: string[];
}

export interface ApprovalProgress {
  have: number;
  need: number;
  approvers: string[];
  /** Requirements not met yet, with how many approvals each still needs. */
  missing?: { count: number; groups: string[]; source?: string }[];
}

/** Why a click changes nothing: each reason is told to the person who clicked, and audited. */
export type ApprovalRefusal =
  | { reason: 'no_rule'; message: string }
  | { reason: 'not_in_group'; message: string }
  | { reason: 'author'; message: string }
  | { reason: 'already_approved'; message: string }
  /** The user's groups only feed requirements that are already met. */
  | { reason: 'not_needed'; message: string };

export type ApprovalDecision =
  | { ok: true; progress: ApprovalProgress; complete: boolean }
  | ({ ok: false } & ApprovalRefusal);

/** A named group of people who may approve: Slack user ids and user groups (handles or ids). */
export interface ApproverGroup {
  users: string[];
  usergroups: string[];
}

/** Who may approve a stack's apply; an absent criterion matches every stack. */
export interface ApproverRule {
  stacks?: string;
  environments?: string[];
  count: number;
  /** Names of approver groups. */
  from: string[];
}

/** The approvers section once validated: groups, rules (first match wins), GitHub login -> Slack user id. */
export interface ApproverRules {
  groups: Record<string, ApproverGroup>;
  rules: ApproverRule[];
  authors: Record<string, string>;
}
