import type { RunStore } from '../../../ports/store.js';
import { toLock } from '../shared/rows.js';
import { advisoryLock, changes, firstRow, type PgContext } from './postgres-context.js';

type LockQueries = Pick<RunStore, 'acquireLock' | 'renewLock' | 'releaseLock' | 'breakLock' | 'getLock'>;

/**
 * Stack locks with a TTL, timed by the injected clock and renewed by their holder's heartbeat. A lock past
 * `expires_at` is broken only when its owner is gone too. Replicas run on many hosts, and a process on
 * another host cannot be asked whether it still runs: there the TTL alone decides (a holder that stops
 * renewing is taken for gone once it runs out). On this host the process is checked, as SQLite does.
 */
export function lockQueries(ctx: PgContext): LockQueries {
  /** The lock row still holds: not expired, or expired with its owner still running on this host. */
  const holds = (row: unknown, now: number): boolean => {
    const lock = toLock(row);
    if (lock.expiresAt.getTime() > now) return true;
    return lock.owner !== undefined && ctx.ownerState(lock.owner) === 'alive';
  };

  return {
    // Acquirers of one stack take turns (advisory lock), so the lookup and the write see the same lock:
    // two replicas finding the same expired lock cannot both take it over.
    acquireLock: (stack, runId, ttlMs) =>
      ctx.transaction(async (tx) => {
        await advisoryLock(tx, `lock:${stack}`);
        const now = tx.nowMs();
        const current = (await firstRow(tx, 'SELECT * FROM locks WHERE stack = $1', [stack])) as
          | { run_id: string }
          | undefined;
        const ours = current?.run_id === runId;
        if (current && !ours && holds(current, now)) return { acquired: false as const, holder: toLock(current) };
        // Re-acquired by its own run while held: it keeps its acquisition time.
        const acquiredAt = ours && holds(current, now) ? toLock(current).acquiredAt.getTime() : now;
        const { owner } = tx;
        const taken = await firstRow(
          tx,
          `INSERT INTO locks (stack, run_id, acquired_at, expires_at, owner_host, owner_pid, owner_start)
           VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (stack) DO UPDATE SET run_id = excluded.run_id, acquired_at = excluded.acquired_at,
             expires_at = excluded.expires_at, owner_host = excluded.owner_host, owner_pid = excluded.owner_pid,
             owner_start = excluded.owner_start
           RETURNING *`,
          [stack, runId, acquiredAt, now + ttlMs, owner.host, owner.pid, owner.start],
        );
        return { acquired: true as const, lock: toLock(taken) };
      }),

    async renewLock(stack, runId, ttlMs) {
      const renewed = await changes(ctx, 'UPDATE locks SET expires_at = $1 WHERE stack = $2 AND run_id = $3', [
        ctx.nowMs() + ttlMs,
        stack,
        runId,
      ]);
      return renewed > 0;
    },

    async releaseLock(stack, runId) {
      await ctx.db.query('DELETE FROM locks WHERE stack = $1 AND run_id = $2', [stack, runId]);
    },

    async breakLock(stack) {
      const row = await firstRow(ctx, 'DELETE FROM locks WHERE stack = $1 RETURNING *', [stack]);
      return row === undefined ? undefined : toLock(row);
    },

    /** The lock in force, if any: an expired lock of a gone owner is as good as free. */
    async getLock(stack) {
      const row = await firstRow(ctx, 'SELECT * FROM locks WHERE stack = $1', [stack]);
      return row !== undefined && holds(row, ctx.nowMs()) ? toLock(row) : undefined;
    },
  };
}
