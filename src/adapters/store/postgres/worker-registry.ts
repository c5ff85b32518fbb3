import { z } from 'zod';
import type { WorkerBeat, WorkerRegistry } from '../../../ports/worker-registry.js';
import { openMigratedPool, type PostgresConnection } from './connect.js';
import { changes, type Queryable, rows } from './postgres-context.js';

/** The database's clock in epoch milliseconds: every heartbeat and every age is measured on it. */
const DB_NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** Workers gone this long are forgotten; a week keeps a pool's last worker in view over a weekend. */
export const FORGET_WORKERS_AFTER_MS = 7 * 24 * 3600_000;

const WorkerRow = z.object({
  id: z.string(),
  pool: z.string(),
  host: z.string(),
  pid: z.number().int(),
  concurrency: z.number().int(),
  running: z.number().int(),
  started_at: z.number(),
  age_ms: z.number(),
});

export interface WorkerRegistryOptions {
  /** This process's clock: a heartbeat's age, measured by the database, is dated on it. */
  now?: () => Date;
  /** Workers not seen for this long are deleted when the registry is listed; default 7 days. */
  forgetAfterMs?: number;
}

/**
 * The worker registry on the store's Postgres. The database stamps each heartbeat and measures its age,
 * and `list` dates it back from this process's clock: a worker's `lastSeenAt` is then right for whoever
 * reads it, whatever the clocks of the worker's host and the database say. Whoever lists also forgets
 * the workers gone for `forgetAfterMs` (no retention job needed: the control plane lists every few seconds).
 */
export function workerRegistryOn(db: Queryable, close: () => Promise<void>, options: WorkerRegistryOptions = {}) {
  const now = options.now ?? (() => new Date());
  const forgetAfterMs = options.forgetAfterMs ?? FORGET_WORKERS_AFTER_MS;
  const registry: WorkerRegistry = {
    async beat(worker) {
      await db.query(
        `INSERT INTO workers (id, pool, host, pid, concurrency, running, started_at, last_seen_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, ${DB_NOW_MS})
         ON CONFLICT (id) DO UPDATE SET pool = excluded.pool, host = excluded.host, pid = excluded.pid,
           concurrency = excluded.concurrency, running = excluded.running, started_at = excluded.started_at,
           last_seen_at = excluded.last_seen_at`,
        [
          worker.id,
          worker.pool,
          worker.host,
          worker.pid,
          worker.concurrency,
          worker.running,
          worker.startedAt.getTime(),
        ],
      );
    },
    async leave(id) {
      await db.query('DELETE FROM workers WHERE id = $1', [id]);
    },
    async list() {
      await changes({ db }, `DELETE FROM workers WHERE last_seen_at < ${DB_NOW_MS} - $1`, [forgetAfterMs]);
      const found = await rows(
        { db },
        `SELECT id, pool, host, pid, concurrency, running, started_at, ${DB_NOW_MS} - last_seen_at AS age_ms
         FROM workers ORDER BY last_seen_at DESC, id`,
      );
      const at = now().getTime();
      return found.map((row): WorkerBeat => {
        const w = WorkerRow.parse(row);
        return {
          id: w.id,
          pool: w.pool,
          host: w.host,
          pid: w.pid,
          concurrency: w.concurrency,
          running: w.running,
          startedAt: new Date(w.started_at),
          lastSeenAt: new Date(at - Math.max(0, w.age_ms)),
        };
      });
    },
    close,
  };
  return registry;
}

/**
 * Opens the worker registry on the Postgres store the config names (the same settings as the store:
 * `store.url`), bringing the schema up to date first. Its own small pool: a heartbeat never waits behind
 * the store's transactions.
 */
export async function openPostgresWorkerRegistry(
  options: PostgresConnection & WorkerRegistryOptions,
): Promise<WorkerRegistry> {
  const { pool, end } = await openMigratedPool('url' in options ? { ...options, poolSize: 2 } : options);
  return workerRegistryOn(pool, end, options);
}
