import type { SlackStore } from './slack-store.js';
import type { StackResourceIndex } from '../domain/change-events/resource-index.js';
import type { MatchedChange } from '../domain/change-events/intake.js';
import type { UnmatchedChange } from '../domain/change-events/unmatched.js';
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

export interface RecoverOptions {
  /**
   * The runs this store's process works on are live while they hold their lock, not left over: a recovery
   * while it runs (a serve that takes the lead again after losing it, mid-apply). At start they count as
   * left over (an earlier serve in the same process).
   */
  ownRunsLive?: boolean;
  /**
   * The leader's sweep while it runs, for runs of other processes that died (a standby killed mid-check),
   * and for its own runs nobody drives any more (their end could not be recorded and their lock lapsed):
   * another host's run, or its own, counts only once it is older than this and no longer holds its lock
   * (a run is created a moment before it takes its lock).
   */
  othersOlderThanMs?: number;
}

/** Waiting changes as read; `unreadable` counts rows this version cannot read (another version wrote them). */
export interface PendingChanges {
  changes: MatchedChange[];
  unreadable: number;
}

/** Matched change events waiting for their stack's next check, which reads them for its attribution. */
export interface PendingChangeStore {
  /**
   * Keeps matched changes for the stack's next check, each event once; of more than
   * PENDING_CHANGES_PER_STACK waiting, the newest stay. Returns how many were added.
   */
  addPendingChanges(stack: string, changes: readonly MatchedChange[]): Promise<number>;
  /**
   * Where the changes waiting for the stack end now (0: none). A check marks this before its plan and
   * answers the changes up to it: those that come while it plans wait for the next check.
   */
  markPendingChanges(stack: string): Promise<number>;
  /** The changes waiting for the stack (up to `upTo`, a mark), oldest first. */
  readPendingChanges(stack: string, upTo?: number): Promise<PendingChanges>;
  /** The check that marked `upTo` answered the changes up to it: they wait no longer. */
  dropPendingChanges(stack: string, upTo: number): Promise<number>;
  /** Drops changes that came before `before` and no check answered (a stack since removed from the config). */
  prunePendingChanges(before: Date): Promise<number>;
  /**
   * The stacks with changes kept before `receivedBefore` that no check has answered: their check was
   * never run (the process that took them died within their debounce window) or failed.
   */
  listWaitingStacks(receivedBefore: Date): Promise<string[]>;
}

/**
 * The run store (SQLite, or Postgres shared by several processes). Every method is atomic on its own;
 * `transition` is compare-and-set: it returns the updated run, or undefined when the run was no longer in
 * one of `from`.
 */
export interface RunStore extends PendingChangeStore {
  upsertStack(name: string): Promise<StackRecord>;
  getStack(name: string): Promise<StackRecord | undefined>;
  listStacks(): Promise<StackRecord[]>;
  setStackStatus(name: string, status: StackStatus, lastRunId?: string): Promise<void>;
  /**
   * Records an open drift, or, when the fingerprint is the one already open, moves it to the new run and
   * refreshes lastSeenAt. Returns true when it is new.
   */
  openDrift(name: string, drift: { fingerprint: string; runId: string; counts: ActionCounts }): Promise<boolean>;
  /** Clears the open drift; returns it, or undefined when there was none. */
  closeDrift(name: string): Promise<StackRecord['openDrift']>;
  blockStack(name: string, reason: string): Promise<void>;
  unblockStack(name: string): Promise<void>;
  setLastAppliedCommit(name: string, sha: string): Promise<void>;
  /**
   * Counts the checks in a row that planned the changes `fingerprint` (undefined: a clean plan, which
   * ends the count). Returns the count, this check included.
   */
  countSamePlan(name: string, fingerprint: string | undefined): Promise<number>;

  /**
   * Runs `work` in one transaction: every write it makes through `tx` is recorded, or none is. Inside `work`
   * use only `tx` (the store outside waits for the transaction, or on Postgres is another connection).
   */
  atomically<T>(work: (tx: Store) => Promise<T>): Promise<T>;

  createRun(run: NewRun): Promise<Run>;
  getRun(id: string): Promise<Run | undefined>;
  listRuns(query?: RunQuery): Promise<Run[]>;
  transition(
    id: string,
    from: RunState | readonly RunState[],
    to: RunState,
    patch?: RunPatch,
  ): Promise<Run | undefined>;

  /** Records the signature of the run's plan (see domain/plan/signature.ts). */
  setPlanSignature(runId: string, signature: string): Promise<void>;
  /** The latest run of `stack` whose plan had `signature`, other than `exceptRunId`. */
  lastRunWithPlanSignature(stack: string, signature: string, exceptRunId: string): Promise<Run | undefined>;
  /** Records what the run's outcome still has to announce (see Announcement); `announced` clears it. */
  announce(runId: string, announcement: Announcement): Promise<void>;
  announced(runId: string): Promise<void>;
  /** Outcomes recorded but never announced, by processes that are gone (a run of a live one is its own). */
  listUnannounced(): Promise<{ run: Run; announcement: Announcement }[]>;

  addArtifact(ref: Omit<ArtifactRef, 'createdAt'>): Promise<ArtifactRef>;
  listArtifacts(runId: string): Promise<ArtifactRef[]>;
  /** Artifacts written before `before`, of runs that are finished (a run awaiting a decision keeps its plan). */
  listArtifactsBefore(before: Date): Promise<ArtifactRef[]>;
  removeArtifact(runId: string, kind: ArtifactRef['kind']): Promise<void>;

  appendAudit(entry: Omit<AuditEntry, 'id'>): Promise<AuditEntry>;
  listAudit(query?: { runId?: string; stack?: string; limit?: number }): Promise<AuditEntry[]>;

  /** Takes the stack lock for a run, or returns the current holder. An expired lock is taken over. */
  acquireLock(
    stack: string,
    runId: string,
    ttlMs: number,
  ): Promise<{ acquired: true; lock: StackLock } | { acquired: false; holder: StackLock }>;
  /** Extends a held lock (heartbeat); false when the run no longer holds it. */
  renewLock(stack: string, runId: string, ttlMs: number): Promise<boolean>;
  releaseLock(stack: string, runId: string): Promise<void>;
  /** Force release (`/drift unlock`). */
  breakLock(stack: string): Promise<StackLock | undefined>;
  getLock(stack: string): Promise<StackLock | undefined>;

  /** Records the remediation PR of a stack's drift; a later one for the same fingerprint replaces it. */
  saveRemediation(record: RemediationRecord): Promise<void>;
  getRemediation(stack: string, fingerprint: string): Promise<RemediationRecord | undefined>;

  /** Replaces a stack's part of the change-event resource index (what its latest state holds). */
  saveResourceIndex(entry: Omit<StackResourceIndex, 'updatedAt'>): Promise<void>;
  /**
   * Every stack's part of the index (what a restart matches change events with); with `stack`, its part
   * only; with `updatedSince`, the parts saved since (a control plane keeping up with its workers' plans).
   */
  listResourceIndexes(query?: { stack?: string; updatedSince?: Date }): Promise<StackResourceIndex[]>;

  /**
   * Keeps change events that matched no stack, each event id once, and counts them in the hour they came
   * (with `dropped`: events of a burst that were counted but not kept).
   */
  recordUnmatchedChanges(batch: { changes: UnmatchedChange[]; dropped: number }): Promise<void>;
  /** The newest kept changes received since `since`, newest first, and how many were counted since its hour. */
  listUnmatchedChanges(query: { since: Date; limit: number }): Promise<{ changes: UnmatchedChange[]; counted: number }>;
  /** Drops kept changes received before `before` or beyond the newest `keep`, and counts before its hour. */
  pruneUnmatchedChanges(options: { before: Date; keep: number }): Promise<number>;

  /**
   * After a crash: every run left in planning or applying becomes interrupted; a stack whose apply was
   * interrupted is blocked. Returns the runs it changed.
   */
  recoverInterrupted(options?: RecoverOptions): Promise<Run[]>;
  /** Resolves when the database answers, throws when it does not (`/readyz`). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The whole store: runs, and what decisions and Slack leave (approvals, messages, outbox). One database. */
export type Store = RunStore & SlackStore;
