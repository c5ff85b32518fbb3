import type { PlanAnalysis } from './plan/model.js';
import type { PolicyEvaluation } from './policy/model.js';
import type { Run } from './run/model.js';

/** Domain events published by the runner; the Slack layer (and others) subscribe. */
export type DomainEvent =
  | { type: 'drift_detected'; stack: string; run: Run; analysis: PlanAnalysis; policy?: PolicyEvaluation }
  | { type: 'plan_pending_approval'; stack: string; run: Run; analysis: PlanAnalysis; policy?: PolicyEvaluation }
  /**
   * The same changes (same fingerprint) planned again: the new run replaces `previousRunId`, an undecided
   * run whose message should now point at the new plan. No new alert: this is not new drift.
   */
  | { type: 'plan_refreshed'; stack: string; run: Run; analysis: PlanAnalysis; previousRunId?: string; policy?: PolicyEvaluation }
  /** `previousRunId`: the run that held the open drift (its message says the drift is resolved now). */
  | { type: 'drift_resolved'; stack: string; run: Run; previousFingerprint: string; previousRunId: string }
  | { type: 'plan_failed'; stack: string; run: Run; error: string; stderrTail: string }
  | { type: 'no_changes'; stack: string; run: Run };

export type DomainEventType = DomainEvent['type'];
export type EventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;
