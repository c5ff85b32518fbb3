/**
 * Where a run's message stands. The message is posted once and updated in place (chat.update) as the run
 * moves; the phase decides its status line and whether it still has buttons.
 */
import type { ApprovalProgress } from '../../domain/approvals/model.js';
import { escapeMrkdwn, userRef } from './escape.js';
import { formatDuration, plural } from './message.js';

export type Verification = 'clean' | 'still_drifting' | 'failed';

export type RunPhase =
  | { kind: 'awaiting' }
  | { kind: 'applying'; by?: string }
  | { kind: 'applied'; durationMs: number; verification: Verification }
  | { kind: 'apply_failed' }
  /** driftgate stopped while applying (found at the next start); the stack is blocked until someone looks. */
  | { kind: 'interrupted'; stack: string }
  | { kind: 'rejected'; by: string; reason?: string }
  | { kind: 'superseded'; by: string }
  /** `afterInterrupted`: the run's own apply was interrupted, then a later check found nothing to change. */
  | { kind: 'drift_resolved'; afterInterrupted?: boolean }
  /**
   * `stale`: terraform refused the plan because the state changed after it was made; `credentials`: the
   * backend refused the credentials saved with the plan before anything changed.
   */
  | { kind: 'expired'; stale?: boolean; credentials?: boolean };

/** Phases in which people still decide: the only ones with buttons. */
export function isAwaiting(phase: RunPhase): boolean {
  return phase.kind === 'awaiting';
}

export interface ApprovalInfo {
  progress: ApprovalProgress;
  /** Groups an approver must belong to (handles or names), for "needs 2 from sre-leads". */
  groups: string[];
}

function approvedBy(approvers: string[], have: number, need: number): string {
  return `Approved by ${approvers.map(userRef).join(', ')} (${have}/${need})`;
}

function needs(approval: ApprovalInfo | undefined): string {
  if (!approval) return 'Waiting for a decision';
  const { have, need, missing: still } = approval.progress;
  if (still && still.length > 1) {
    const total = still.reduce((n, m) => n + m.count, 0);
    const parts = still.map(
      (m) =>
        `${m.count} from ${m.groups.map(escapeMrkdwn).join(' or ')}${m.source && !m.source.startsWith('approvers.') ? ` (policy ${escapeMrkdwn(m.source)})` : ''}`,
    );
    return `Waiting for ${plural(total, 'approval')}${have > 0 ? ' more' : ''}: ${parts.join(' and ')}`;
  }
  // One requirement left: name only its groups, since only they can still approve.
  const groups = still?.length === 1 ? still[0]!.groups : approval.groups;
  const from = groups.length ? ` from ${groups.map(escapeMrkdwn).join(' or ')}` : '';
  const missing = Math.max(0, need - have);
  return `Waiting for ${plural(missing, 'approval')}${have > 0 ? ' more' : ''}${from}`;
}

const VERIFIED: Record<Verification, string> = {
  clean: 'verified: no drift',
  still_drifting: 'verification: still drifting, see thread',
  failed: 'verification failed, see thread',
};

/** One mrkdwn line: what happened to the run, with an emoji people can scan for. */
export function phaseStatusLine(phase: RunPhase, approval?: ApprovalInfo): string {
  switch (phase.kind) {
    case 'awaiting': {
      const p = approval?.progress;
      const got = p && p.have > 0 ? `${approvedBy(p.approvers, p.have, p.need)} · ` : '';
      return `:hourglass_flowing_sand: ${got}${needs(approval)}`;
    }
    case 'applying':
      return `:gear: Applying…${phase.by ? ` (started by ${userRef(phase.by)})` : ''}`;
    case 'applied': {
      const emoji = phase.verification === 'clean' ? ':white_check_mark:' : ':warning:';
      return `${emoji} Applied in ${formatDuration(phase.durationMs)}, ${VERIFIED[phase.verification]}`;
    }
    case 'apply_failed':
      return ':x: Apply failed: see thread';
    case 'interrupted':
      return `:warning: Apply interrupted: driftgate stopped while applying; the real infrastructure may be half applied. An approver runs \`/drift unlock ${escapeMrkdwn(phase.stack)}\` after checking it`;
    case 'rejected': {
      const reason = phase.reason?.trim() ? `: ${escapeMrkdwn(phase.reason.trim().replace(/\s*\n\s*/g, ' '))}` : '';
      return `:no_entry_sign: Rejected by ${userRef(phase.by)}${reason}`;
    }
    case 'superseded':
      return `:fast_forward: Superseded by a newer plan (run ${escapeMrkdwn(phase.by)})`;
    case 'drift_resolved':
      // The interruption stays said: it is why the stack was blocked, and the thread explains it.
      return phase.afterInterrupted
        ? ':white_check_mark: Apply interrupted, then drift resolved: a later check found the infrastructure matching the code'
        : ':white_check_mark: Drift resolved: the infrastructure matches the code again';
    case 'expired':
      if (phase.credentials)
        return ':clock3: Not applied: the backend rejected the credentials saved with this plan (expired while it waited); nothing was changed. A fresh plan follows';
      return phase.stale
        ? ':clock3: Not applied: the state changed after this plan was made, so terraform refused it. A fresh plan follows'
        : ':clock3: Expired: this plan is too old to apply; a fresh plan follows';
  }
}
