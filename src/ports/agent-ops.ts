/**
 * terraform commands the control plane hands to a pool's workers (`runners.agent`): the control plane
 * keeps runs, locks, approvals and artifacts, and a worker only runs terraform for one op it leased. An op
 * is leased to one token at a time; its results are taken only from that lease, once.
 */
export const AGENT_OP_KINDS = ['plan', 'state_pull', 'apply', 'codify', 'cloudtrail'] as const;
export type AgentOpKind = (typeof AGENT_OP_KINDS)[number];

/**
 * `queued`: waiting for a worker; `leased`: a worker holds it; `done`: its result is in; `lost`: its
 * worker went away past the attempts it may have (an apply gets one); `cancelled`: nobody waits any more.
 */
export type AgentOpState = 'queued' | 'leased' | 'done' | 'lost' | 'cancelled';

export interface AgentOp {
  id: string;
  pool: string;
  stack: string;
  kind: AgentOpKind;
  request: unknown;
  state: AgentOpState;
  attempts: number;
  maxAttempts: number;
  result?: unknown;
  leaseTokenId?: string;
}

/** A file that goes with an op: to the worker (`in`: the saved plan of an apply) or from it (`out`). */
export interface AgentOpFile {
  name: string;
  body: Buffer;
}

export type LeaseCheck = { ok: true; op: AgentOp } | { ok: false; reason: 'no_such_op' | 'not_yours' | 'lease_over' };

export interface AgentOpStore {
  enqueue(op: {
    id: string;
    pool: string;
    stack: string;
    kind: AgentOpKind;
    request: unknown;
    maxAttempts: number;
    files?: AgentOpFile[];
  }): Promise<void>;
  /** Leases the oldest queued op of the pool (of `kinds`) to the token for `leaseMs`; undefined when none waits. */
  claim(
    pool: string,
    kinds: readonly AgentOpKind[],
    lease: { hash: string; tokenId: string; ms: number },
  ): Promise<AgentOp | undefined>;
  /** The op, if `tokenId` holds it with the lease whose hash is `hash` and the lease has not run out. */
  checkLease(id: string, tokenId: string, hash: string): Promise<LeaseCheck>;
  /** Extends a lease it checks first; false when the lease is no longer this one. */
  extend(id: string, tokenId: string, hash: string, ms: number): Promise<boolean>;
  /** Puts a file the leased op's worker uploads (before its result). */
  putFile(id: string, tokenId: string, hash: string, file: AgentOpFile & { sha256: string }): Promise<boolean>;
  /** Records the result of a leased op, once: false when the lease is no longer this one (nothing written). */
  complete(id: string, tokenId: string, hash: string, result: unknown): Promise<boolean>;
  get(id: string): Promise<AgentOp | undefined>;
  file(id: string, direction: 'in' | 'out', name: string): Promise<{ body: Buffer; sha256: string } | undefined>;
  /**
   * Leases that ran out: the op is queued again while it has attempts left (a plan changes nothing), else
   * lost. Returns the ops it moved.
   */
  expireLeases(): Promise<{ id: string; state: AgentOpState }[]>;
  /** Nobody waits for the op any more (its check stopped): its worker's next call is refused. */
  cancel(id: string): Promise<void>;
  /** Drops the op and its files (its waiter took the result, or gave up). */
  remove(id: string): Promise<void>;
  /**
   * Drops finished ops untouched for `olderThanMs` that nobody will read any more (their waiter's process
   * died before it took the result). A waiting op stays: a worker still runs it, and then it is finished.
   */
  prune(olderThanMs: number): Promise<number>;
  /**
   * Resolves when an op may have been queued on `pool` (here or by another process), or after `ms`: a
   * claim's long poll wakes at once instead of at its next look.
   */
  queued(pool: string, ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Resolves when op `id` may have finished (its result stored, or its lease run out, here or in another
   * process), or after `ms`: its waiter reads it at once instead of at its next look.
   */
  settled(id: string, ms: number, signal?: AbortSignal): Promise<void>;
  /** Queued and leased ops per pool. */
  depth(
    pools: readonly string[],
  ): Promise<{ pool: string; waiting: number; active: number; oldestWaitingSeconds?: number }[]>;
  close(): Promise<void>;
}

/** What an op's waiter gets: the worker's result, the files it uploaded, and `done` to drop them. */
export interface OpOutcome {
  result: unknown;
  file(name: string): Promise<Buffer | undefined>;
  done(): Promise<void>;
}

/** Runs one op on a worker of the stack's pool and waits for its result (the control plane's side). */
export type AgentOpRunner = (
  kind: AgentOpKind,
  target: { pool: string; stack: string },
  request: object,
  limits: { runMs: number; attempts: number; signal?: AbortSignal; files?: AgentOpFile[] },
) => Promise<OpOutcome>;
