import type { PoolQueueDepth as PoolDepth } from '../domain/pool/pool-health.js';
import type { RelayedEvent } from '../domain/relayed-event.js';
import type { RunTrigger } from '../domain/run/state.js';

/** One kind of job of one pool, as pg-boss counts it. */
export type PoolQueueDepth = PoolDepth & { kind: 'check' | 'apply' | 'codify' };

/** Work for a worker pool. The control plane queues it; a worker of the stack's pool takes it. */
export type PoolJob =
  | { kind: 'check'; stack: string; trigger: RunTrigger }
  /** Never retried: an apply whose worker died is interrupted and its stack blocked. */
  | { kind: 'apply'; stack: string; runId: string; actor: string }
  /** The terraform half of a remediation (fmt, validate, provider schema); the PR is the control plane's. */
  | {
      kind: 'codify';
      stack: string;
      runId: string;
      /** Names the answer (the `remediation` artifact of the run), for the replica that waits for it. */
      requestId: string;
      requestedBy: string;
      threadUrl?: string;
    };

export type PoolJobKind = PoolJob['kind'];
export type ApplyJob = Extract<PoolJob, { kind: 'apply' }>;

/** A job a worker has taken. `signal` aborts when the queue no longer counts the job as this worker's. */
export interface TakenJob {
  id: string;
  job: PoolJob;
  /** 0 on the first attempt; a check whose worker died is taken again with 1, 2, ... */
  retry: number;
  signal: AbortSignal;
}

export type Enqueued = { queued: true; id: string } | { queued: false; reason: 'already_queued' };

export interface JobQueue {
  /** Queues a job on `pool`. A stack has at most one job of a kind waiting: another is `already_queued`. */
  enqueue(pool: string, job: PoolJob): Promise<Enqueued>;
  /**
   * Takes `pool`'s jobs of `kinds`, at most `concurrency` at once, until `stop`. The handler's promise
   * settles the job: resolved, done; rejected, failed (a check is retried on another worker, an apply never).
   */
  work(
    pool: string,
    kinds: readonly PoolJobKind[],
    concurrency: number,
    handler: (job: TakenJob) => Promise<void>,
  ): Promise<void>;
  /**
   * Takes the applies no worker finished (its process died, or it failed without settling the run), of
   * every pool: the control plane marks each run interrupted and blocks its stack. Never run again.
   */
  workAbandonedApplies(handler: (job: ApplyJob) => Promise<void>): Promise<void>;
  /**
   * Sends what a worker's run published (its outcome, an apply's result) to the control plane. One
   * stack's events are taken in the order they were sent, one at a time.
   */
  relay(event: RelayedEvent): Promise<void>;
  /** Takes relayed events (any control-plane replica); a handler that throws gets the event again later. */
  workRelayed(handler: (event: RelayedEvent) => Promise<void>): Promise<void>;
  depth(pools: readonly string[]): Promise<PoolQueueDepth[]>;
  /** Stops taking jobs; waits up to `timeoutMs` for the running ones. */
  stop(timeoutMs: number): Promise<void>;
}
