import type { RunStore } from '../../ports/store.js';
import type { StoreContext } from './context.js';
import { toLock } from './rows.js';

type LockQueries = Pick<RunStore, 'acquireLock' | 'renewLock' | 'releaseLock' | 'breakLock' | 'getLock'>;

/**
 * Stack locks with a TTL, timed by the injected clock. A lock past `expires_at` belongs to a process that
 * stopped heartbeating; the next acquirer takes it over.
 */
export function lockQueries(ctx: StoreContext): LockQueries {
  const acquire = ctx.db.transaction((stack: string, runId: string, ttlMs: number) => {
    const now = ctx.nowMs();
    // One statement decides: insert when free, take over when expired, extend when it is already ours.
    const taken = ctx
      .stmt(
        `INSERT INTO locks (stack, run_id, acquired_at, expires_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (stack) DO UPDATE SET
           acquired_at = CASE WHEN locks.run_id = excluded.run_id AND locks.expires_at > excluded.acquired_at
                              THEN locks.acquired_at ELSE excluded.acquired_at END,
           run_id = excluded.run_id,
           expires_at = excluded.expires_at
         WHERE locks.expires_at <= excluded.acquired_at OR locks.run_id = excluded.run_id
         RETURNING *`,
      )
      .get(stack, runId, now, now + ttlMs);
    if (taken !== undefined) return { acquired: true as const, lock: toLock(taken) };
    const holder = ctx.stmt('SELECT * FROM locks WHERE stack = ?').get(stack);
    return { acquired: false as const, holder: toLock(holder) };
  });

  return {
    // IMMEDIATE: the insert and the holder lookup see the same lock even with other processes writing.
    acquireLock: (stack, runId, ttlMs) => acquire.immediate(stack, runId, ttlMs),

    renewLock(stack, runId, ttlMs) {
      const now = ctx.nowMs();
      return (
        ctx.stmt('UPDATE locks SET expires_at = ? WHERE stack = ? AND run_id = ?').run(now + ttlMs, stack, runId)
          .changes > 0
      );
    },

    releaseLock(stack, runId) {
      ctx.stmt('DELETE FROM locks WHERE stack = ? AND run_id = ?').run(stack, runId);
    },

    breakLock(stack) {
      const row = ctx.stmt('DELETE FROM locks WHERE stack = ? RETURNING *').get(stack);
      return row === undefined ? undefined : toLock(row);
    },

    /** The lock in force, if any: an expired lock is as good as free. */
    getLock(stack) {
      const row = ctx.stmt('SELECT * FROM locks WHERE stack = ? AND expires_at > ?').get(stack, ctx.nowMs());
      return row === undefined ? undefined : toLock(row);
    },
  };
}
