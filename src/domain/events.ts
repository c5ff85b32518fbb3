import type { ApprovalProgress } from './approvals/model.js';
import type { PlanAnalysis } from './plan/model.js';
import type { PolicyEvaluation } from './policy/model.js';
import type { RemediationSkip } from './remediation/plan-remediation.js';
import type { RemediationRecord } from './remediation/record.js';
import type { Run } from './run/model.js';

/** Domain events published by the runner; the Slack layer (and others) subscribe. */
export type DomainEvent =
  | { type: 'drift_detected'; stack: string; run: Run; analysis: PlanAnalysis; policy?: PolicyEvaluation }
  | { type: 'plan_pending_approval'; stack: string; run: Run; analysis: PlanAnalysis; policy?: PolicyEvaluation }
  /**
   * The same changes (same fingerprint) planned again: the new run replaces `previousRunId`, an undecided
   * run whose message should now point at the new plan. No new alert: this is not new drift.
   */
  | {
      type: 'plan_refreshed';
      stack: string;
      run: Run;
      analysis: PlanAnalysis;
      previousRunId?: string;
      policy?: PolicyEvaluation;
      /** Set on the check that makes `notConverging` checks in a row with these same changes: said once. */
      notConverging?: number;
    }
  /** `previousRunId`: the run that held the open drift (its message says the drift is resolved now). */
  | { type: 'drift_resolved'; stack: string; run: Run; previousFingerprint: string; previousRunId: string }
  | { type: 'plan_failed'; stack: string; run: Run; error: string; stderrTail: string }
  | { type: 'no_changes'; stack: string; run: Run }
  /** `actor`'s approval counts and more are needed: the run's message shows the new count. */
  | { type: 'approval_recorded'; stack: string; run: Run; actor: string; progress: ApprovalProgress }
  /** `actor`'s approval was the last one needed: the run is `approved`, and its apply is asked for next. */
  | { type: 'approval_completed'; stack: string; run: Run; actor: string; progress: ApprovalProgress }
  /** `actor` rejected the run (`reason` already masked); its drift stays quiet until `snoozedUntil`. */
  | { type: 'rejected'; stack: string; run: Run; actor: string; reason?: string; snoozedUntil?: Date }
  /** `actor` asked for a remediation PR of the run's drift: what came of it. */
  | { type: 'remediation_answered'; stack: string; run: Run; actor: string; result: RemediationResult }
  /** An apply was asked for (the last approval, or an automatic mode): it waits for the stack, then runs. */
  | { type: 'apply_queued'; stack: string; run: Run; actor: string }
  /** terraform applied the saved plan; `verification` is what the plan made right after it found. */
  | {
      type: 'applied';
      stack: string;
      run: Run;
      actor: string;
      durationMs: number;
      output: string;
      verification: Verification;
    }
  /** terraform failed part way or at the start: the stack may be partly applied. */
  | {
      type: 'apply_failed';
      stack: string;
      run: Run;
      actor: string;
      durationMs: number;
      error: string;
      output: string;
      verification: Verification;
    }
  /** The apply never started (the stack is blocked or locked, the run's commit cannot be checked out). */
  | { type: 'apply_not_started'; stack: string; run: Run; actor: string; reason: string; blocked: boolean }
  /**
   * Found at start: driftgate stopped (a crash, a power cut) while applying `run`, which `startedBy` had
   * started. The real infrastructure may be half applied and the stack is blocked until a person looks.
   */
  | { type: 'apply_interrupted'; stack: string; run: Run; startedBy: string }
  /**
   * The plan can no longer be applied: older than maxPlanAge, or (`stale`) terraform refused it because
   * the state changed after it was made. A fresh plan has been asked for.
   */
  /** `credentials`: the backend refused the credentials saved with the plan, before anything changed. */
  | { type: 'plan_expired'; stack: string; run: Run; stale: boolean; credentials?: boolean };

/** A PR opened, one already open (`existing`) or merged for the same drift, or nothing codifiable. */
export type RemediationResult =
  | { status: 'opened' | 'existing' | 'merged'; record: RemediationRecord }
  | { status: 'nothing_to_codify'; skipped: RemediationSkip[] };

/** What the plan right after an apply found: nothing left, changes still there, or no plan at all. */
export type Verification = 'clean' | 'still_drifting' | 'failed';

/**
 * What a check's outcome still has to tell the others (Slack, on-call): recorded in the same transaction as
 * the outcome and cleared once its event is published, so a process that dies in between leaves it for
 * the next start to publish (the event is rebuilt from the run and its stored analysis).
 */
export type Announcement =
  | { type: 'drift_detected' | 'plan_pending_approval' | 'no_changes' }
  | { type: 'plan_refreshed'; previousRunId?: string; notConverging?: number }
  | { type: 'drift_resolved'; previousFingerprint: string; previousRunId: string };

export type DomainEventType = DomainEvent['type'];

/**
 * The event an announcement stands for, from the run it was recorded on and that run's analysis;
 * undefined when the event needs an analysis and there is none.
 */
export function announcementEvent(
  announcement: Announcement,
  run: Run,
  found: { analysis?: PlanAnalysis | undefined; policy?: PolicyEvaluation | undefined },
): DomainEvent | undefined {
  const stack = run.stack;
  switch (announcement.type) {
    case 'no_changes':
      return { type: 'no_changes', stack, run };
    case 'drift_resolved':
      return { ...announcement, stack, run };
    default:
      if (!found.analysis) return undefined;
      return {
        ...announcement,
        stack,
        run,
        analysis: found.analysis,
        ...(found.policy ? { policy: found.policy } : {}),
      };
  }
}
export type EventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;
