import { type PoolHealth, unservedPools } from './pool-health.js';

/** What Slack is told about a pool: its work waits unserved, or it is served again (the episode's end). */
export type PoolNotice =
  | { kind: 'unserved'; pool: string; since: Date; at: Date; health: PoolHealth }
  /** `health` is absent when the pool is no longer read (no stack names it any more). */
  | { kind: 'served'; pool: string; since: Date; at: Date; health?: PoolHealth };

/**
 * The notices one look at the pools calls for, given the pools already told as unserved (and since
 * when): a pool unserved for `afterMs` is told once per episode, and its end once, when no work waits
 * unserved in it any more. A pool unserved for less than `afterMs` that recovers is never told.
 */
export function poolNotices(
  told: ReadonlyMap<string, Date>,
  health: readonly PoolHealth[],
  now: Date,
  afterMs: number,
): PoolNotice[] {
  const started = unservedPools(health, now, afterMs)
    .filter((h) => !told.has(h.pool))
    .map((h): PoolNotice => ({ kind: 'unserved', pool: h.pool, since: h.unservedSince!, at: now, health: h }));
  const ended = [...told].flatMap(([pool, since]): PoolNotice[] => {
    const h = health.find((p) => p.pool === pool);
    if (h?.unservedSince) return [];
    return [{ kind: 'served', pool, since, at: now, ...(h ? { health: h } : {}) }];
  });
  return [...started, ...ended];
}
