import type { SlackStore } from './slack-store.js';
import type { Announcement } from '../domain/events.js';
import type { ActionCounts } from '../domain/plan/model.js';
import type { ArtifactRef, AuditEntry, Run, StackLock, StackRecord, StackStatus } from '../domain/run/model.js';
import type { RemediationRecord } from '../domain/remediation/record.js';
import type { RunKind, RunState, RunTrigger } from '../domain/run/state.js';

export interface NewRun {
  stack: string;
  trigger: RunTrigger;
  commitSha?: string;
}

/** Fields a transition may set along with the new state. */
export interface RunPatch {
  kind?: RunKind;
  fingerprint?: string;
  counts?: ActionCounts;
  planSha256?: string;
  error?: string;
  supersededBy?: string;
  commitSha?: string;
}

export interface RunQuery {
  stack?: string;
  states?: RunState[];
  limit?: number;
}

/**
 * The run store. Every method is synchronous and atomic (SQLite); `transition` is compare-and-set:
 * it returns the updated run, or undefined when the run was no longer in one of `from`.
 */
export interface RunStore {
  upsertStack(name: string): StackRecord;
  getStack(name: string): StackRecord | undefined;
  listStacks(): StackRecord[];
  setStackStatus(name: string, status: StackStatus, lastRunId?: string): void;
  /**
   * Records an open drift, or, when the fingerprint is the one already open, moves it to the new run and
   * refreshes lastSeenAt. Returns true when it is new.
   */
  openDrift(name: string, drift: { fingerprint: string; runId: string; counts: ActionCounts }): boolean;
  /** Clears the open drift; returns it, or undefined when there was none. */
  closeDrift(name: string): StackRecord['openDrift'];
  blockStack(name: string, reason: string): void;
  unblockStack(name: string): void;
  setLastAppliedCommit(name: string, sha: string): void;
  /**
   * Counts the checks in a row that planned the changes `fingerprint` (undefined: a clean plan, which
   * ends the count). Returns the count, this check included.
   */
  countSamePlan(name: string, fingerprint: string | undefined): number;

  /** Runs `work` in one transaction: every write in it is recorded, or none is. */
  atomically<T>(work: () => T): T;

  createRun(run: NewRun): Run;
  getRun(id: string): Run | undefined;
  listRuns(query?: RunQuery): Run[];
  transition(id: string, from: RunState | readonly RunState[], to: RunState, patch?: RunPatch): Run | undefined;

  /** Records the signature of the run's plan (see domain/plan/signature.ts). */
  setPlanSignature(runId: string, signature: string): void;
  /** The latest run of `stack` whose plan had `signature`, other than `exceptRunId`. */
  lastRunWithPlanSignature(stack: string, signature: string, exceptRunId: string): Run | undefined;
  /** Records what the run's outcome still has to announce (see Announcement); `announced` clears it. */
  announce(runId: string, announcement: Announcement): void;
  announced(runId: string): void;
  /** Outcomes recorded but never announced, by processes that are gone (a run of a live one is its own). */
  listUnannounced(): { run: Run; announcement: Announcement }[];

  addArtifact(ref: Omit<ArtifactRef, 'createdAt'>): ArtifactRef;
  listArtifacts(runId: string): ArtifactRef[];
  /** Artifacts written before `before`, of runs that are finished (a run awaiting a decision keeps its plan). */
  listArtifactsBefore(before: Date): ArtifactRef[];
  removeArtifact(runId: string, kind: ArtifactRef['kind']): void;

  appendAudit(entry: Omit<AuditEntry, 'id'>): AuditEntry;
  listAudit(query?: { runId?: string; stack?: string; limit?: number }): AuditEntry[];

  /** Takes the stack lock for a run, or returns the current holder. An expired lock is taken over. */
  acquireLock(
    stack: string,
    runId: string,
    ttlMs: number,
  ): { acquired: true; lock: StackLock } | { acquired: false; holder: StackLock };
  /** Extends a held lock (heartbeat); false when the run no longer holds it. */
  renewLock(stack: string, runId: string, ttlMs: number): boolean;
  releaseLock(stack: string, runId: string): void;
  /** Force release (`/drift unlock`). */
  breakLock(stack: string): StackLock | undefined;
  getLock(stack: string): StackLock | undefined;

  /** Records the remediation PR of a stack's drift; a later one for the same fingerprint replaces it. */
  saveRemediation(record: RemediationRecord): void;
  getRemediation(stack: string, fingerprint: string): RemediationRecord | undefined;

  /**
   * After a crash: every run left in planning or applying becomes interrupted; a stack whose apply was
   * interrupted is blocked. Returns the runs it changed.
   */
  recoverInterrupted(): Run[];
  close(): void;
}

/** The whole store: runs, and what decisions and Slack leave (approvals, messages, outbox). One database. */
export type Store = RunStore & SlackStore;
