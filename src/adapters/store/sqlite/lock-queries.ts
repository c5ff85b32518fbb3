import type { RunStore } from '../../../ports/store.js';
import type { Synchronous } from './synchronous.js';
import type { StoreContext } from './sqlite-context.js';
import { toLock } from '../shared/rows.js';

type LockQueries = Pick<Synchronous<RunStore>, 'acquireLock' | 'renewLock' | 'releaseLock' | 'breakLock' | 'getLock'>;

/**
 * Stack locks with a TTL, timed by the injected clock and renewed by their holder's heartbeat. A lock past
 * `expires_at` is broken only when its owner is gone too: a holder still running (its event loop stalled,
 * its clock behind) keeps it, a killed one frees it once the TTL has run out.
 */
export function lockQueries(ctx: StoreContext): LockQueries {
  /** The lock row still holds: not expired, or expired with its owner still running on this host. */
  const holds = (row: unknown, now: number): boolean => {
    const lock = toLock(row);
    if (lock.expiresAt.getTime() > now) return true;
    return lock.owner !== undefined && ctx.ownerState(lock.owner) === 'alive';
  };

  const acquire = ctx.db.transaction((stack: string, runId: string, ttlMs: number) => {
    const now = ctx.nowMs();
    const current = ctx.stmt('SELECT * FROM locks WHERE stack = ?').get(stack) as { run_id: string } | undefined;
    const ours = current?.run_id === runId;
    if (current && !ours && holds(current, now)) return { acquired: false as const, holder: toLock(current) };
    // Re-acquired by its own run while held: it keeps its acquisition time.
    const acquiredAt = ours && holds(current, now) ? toLock(current).acquiredAt.getTime() : now;
    const { owner } = ctx;
    const taken = ctx
      .stmt(
        `INSERT OR REPLACE INTO locks (stack, run_id, acquired_at, expires_at, owner_host, owner_pid, owner_start)
         VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(stack, runId, acquiredAt, now + ttlMs, owner.host, owner.pid, owner.start);
    return { acquired: true as const, lock: toLock(taken) };
  });

  return {
    // IMMEDIATE: the lookup and the write see the same lock even with other processes writing.
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

    /** The lock in force, if any: an expired lock of a gone owner is as good as free. */
    getLock(stack) {
      const row = ctx.stmt('SELECT * FROM locks WHERE stack = ?').get(stack);
      return row !== undefined && holds(row, ctx.nowMs()) ? toLock(row) : undefined;
    },
  };
}
