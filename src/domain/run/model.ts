import type { ActionCounts } from '../plan/model.js';
import type { RunKind, RunState, RunTrigger } from './state.js';

export interface Run {
  id: string;
  stack: string;
  state: RunState;
  trigger: RunTrigger;
  kind?: RunKind;
  createdAt: Date;
  updatedAt: Date;
  finishedAt?: Date;
  /** Git commit the plan ran at, when known. */
  commitSha?: string;
  fingerprint?: string;
  counts?: ActionCounts;
  /** sha256 of the saved plan file: the apply refuses any other file. */
  planSha256?: string;
  /** Short, redacted reason for errored / apply_failed / interrupted runs. */
  error?: string;
  /** Run that replaced this one (state superseded). */
  supersededBy?: string;
}

/** `policy`: what the policies said about the plan (PolicyEvaluation JSON). */
export type ArtifactKind =
  | 'plan'
  | 'plan_json'
  | 'plan_log'
  | 'apply_log'
  | 'analysis'
  | 'policy'
  | 'commits'
  | 'remediation'
  | 'attribution'
  /** What the check read beside the plan (providers, modules, inputs, state): drift causes compare with it. */
  | 'evidence';

export interface ArtifactRef {
  runId: string;
  kind: ArtifactKind;
  /** Key inside the artifact store. */
  key: string;
  sha256: string;
  size: number;
  createdAt: Date;
}

export interface AuditEntry {
  id?: number;
  at: Date;
  /** Slack user id, `system`, `cli:<user>`, … */
  actor: string;
  action: string;
  runId?: string;
  stack?: string;
  planSha256?: string;
  detail?: Record<string, unknown>;
}

export type StackStatus = 'unknown' | 'in_sync' | 'drifted' | 'pending_approval' | 'errored' | 'blocked';

export interface StackRecord {
  name: string;
  status: StackStatus;
  lastCheckAt?: Date;
  lastRunId?: string;
  /** The open drift: set while the stack drifts, cleared by drift_resolved. */
  openDrift?: { fingerprint: string; runId: string; firstSeenAt: Date; lastSeenAt: Date; counts: ActionCounts };
  /** Set when an apply was interrupted: the stack's real state may be half applied. */
  blockedReason?: string;
  /** Commit last applied through driftgate (or baselined). */
  lastAppliedCommit?: string;
  /** Set once two or more checks in a row planned the same changes (`fingerprint`): a perpetual diff. */
  samePlan?: { fingerprint: string; checks: number };
}

/** The process working on a lock or a run: `start` tells it apart from a later process given the same pid. */
export interface ProcessOwner {
  host: string;
  pid: number;
  start: string;
}

export interface StackLock {
  stack: string;
  runId: string;
  acquiredAt: Date;
  expiresAt: Date;
  /** Absent on locks written before owners were recorded. */
  owner?: ProcessOwner;
}
