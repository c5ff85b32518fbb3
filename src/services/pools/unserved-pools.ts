import type { PoolHealth } from '../../domain/pool/pool-health.js';
import { type PoolNotice, poolNotices } from '../../domain/pool/pool-notices.js';

export type { PoolNotice };

export interface UnservedPoolsDeps {
  /** The pools' health (createPoolStatus). */
  status: () => Promise<PoolHealth[]>;
  /** `runners.unservedAlertAfter`. */
  afterMs: number;
  now: () => Date;
  /** Says it in Slack (through the outbox); a rejection leaves the notice to the next look. */
  notify(notice: PoolNotice): Promise<void>;
}

export interface UnservedPoolsWatch {
  /** Looks at the pools once and sends the notices due; returns how many. Run every few seconds, on the leader. */
  check(): Promise<number>;
}

/**
 * "No worker for pool prod for 5 min", instead of checks waiting silently: once per episode, and once
 * more when the pool is served again. What was told lives in this process: a new leader tells a
 * pool still unserved once more (better twice than never).
 */
export function createUnservedPoolsWatch(deps: UnservedPoolsDeps): UnservedPoolsWatch {
  const told = new Map<string, Date>();
  // The queue's age of its oldest waiting job is a sampled statistic (it can read 0 for a job that has
  // waited a while): a pool's episode starts no later than the first look that found it unserved.
  const seen = new Map<string, Date>();
  const sinceFirstSeen = (health: PoolHealth[]): PoolHealth[] =>
    health.map((h) => {
      if (!h.unservedSince) {
        seen.delete(h.pool);
        return h;
      }
      const first = seen.get(h.pool);
      const since = first && first < h.unservedSince ? first : h.unservedSince;
      seen.set(h.pool, since);
      return { ...h, unservedSince: since };
    });
  return {
    async check() {
      const notices = poolNotices(told, sinceFirstSeen(await deps.status()), deps.now(), deps.afterMs);
      for (const notice of notices) {
        await deps.notify(notice);
        if (notice.kind === 'unserved') told.set(notice.pool, notice.since);
        else told.delete(notice.pool);
      }
      return notices.length;
    },
  };
}
