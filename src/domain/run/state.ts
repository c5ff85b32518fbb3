/**
 * The run state machine. A run is one plan of one stack and what became of it. Transitions happen in the
 * store as compare-and-set (see RunStore.transition), so two approvers clicking at once cannot start two
 * applies: only one caller sees its `from` state match.
 */
export const RUN_STATES = [
  'planning',
  'no_changes',
  'drifted',
  'pending_approval',
  'approved',
  'applying',
  'applied',
  'apply_failed',
  'rejected',
  'errored',
  'superseded',
  'expired',
  'interrupted',
] as const;

export type RunState = (typeof RUN_STATES)[number];

const TRANSITIONS: Record<RunState, readonly RunState[]> = {
  planning: ['no_changes', 'drifted', 'pending_approval', 'errored', 'interrupted'],
  drifted: ['approved', 'applying', 'rejected', 'superseded', 'expired', 'errored'],
  pending_approval: ['approved', 'applying', 'rejected', 'superseded', 'expired', 'errored'],
  // interrupted: found approved at start although its apply was handed to terraform (a lost `applying`).
  approved: ['applying', 'superseded', 'expired', 'errored', 'interrupted'],
  // expired: terraform refused the saved plan as stale, before changing anything.
  applying: ['applied', 'apply_failed', 'interrupted', 'expired'],
  no_changes: [],
  applied: [],
  apply_failed: [],
  rejected: [],
  errored: [],
  superseded: [],
  expired: [],
  interrupted: [],
};

export function canTransition(from: RunState, to: RunState): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isTerminal(state: RunState): boolean {
  return TRANSITIONS[state].length === 0;
}

/** States in which a run waits for a person; such a run holds no stack lock. */
export const AWAITING_DECISION: readonly RunState[] = ['drifted', 'pending_approval', 'approved'];

/** States in which people still decide: `approved` is decided and waits for its apply. */
export const UNDECIDED: readonly RunState[] = ['drifted', 'pending_approval'];

/** States in which terraform may be running for the run. Left over after a crash, they become interrupted. */
export const IN_FLIGHT: readonly RunState[] = ['planning', 'applying'];

/**
 * Why the run exists; `webhook`: GitHub said the stack's branch moved (a push or a merged pull request);
 * `event`: a cloud change event named a resource of the stack.
 */
export const RUN_TRIGGERS = ['schedule', 'manual', 'verify', 'startup', 'webhook', 'event'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

/** What the plan found: drift of real infrastructure, or a change in code waiting to be applied. */
export type RunKind = 'drift' | 'pending_change';
