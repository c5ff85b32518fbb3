import type { WorkerBeat } from '../domain/pool/pool-health.js';

export type { WorkerBeat };

/**
 * The workers of every pool, as their heartbeats left them: shared by all processes on the Postgres store
 * (`runners: {type: workers}`). SQLite mode has no workers and no registry.
 */
export interface WorkerRegistry {
  /** Records a heartbeat: creates the worker's row, or updates it. The registry stamps the time. */
  beat(worker: Omit<WorkerBeat, 'lastSeenAt'>): Promise<void>;
  /** A worker that stops cleanly leaves: it no longer counts, live or stale. */
  leave(id: string): Promise<void>;
  /** Every worker still remembered (live or stale), oldest heartbeat last. */
  list(): Promise<WorkerBeat[]>;
  close(): Promise<void>;
}
