/** What an apply of a stack needs: `count` distinct people, each a member of one of `groups`. */
export interface ApprovalRequirement {
  count: number;
  groups: string[];
}

export interface Approval {
  runId: string;
  /** Slack user id. */
  userId: string;
  at: Date;
}

export interface ApprovalProgress {
  have: number;
  need: number;
  approvers: string[];
}

/** Why a click changes nothing: each reason is told to the person who clicked, and audited. */
export type ApprovalRefusal =
  | { reason: 'no_rule'; message: string }
  | { reason: 'not_in_group'; message: string }
  | { reason: 'author'; message: string }
  | { reason: 'already_approved'; message: string };

export type ApprovalDecision =
  | { ok: true; progress: ApprovalProgress; complete: boolean }
  | ({ ok: false } & ApprovalRefusal);
