import { describe, expect, it } from 'vitest';
import {
  type PoolQueueDepth,
  poolHealth,
  unservedPools,
  type WorkerBeat,
} from '../../../src/domain/pool/pool-health.js';

const now = new Date('2026-12-04T10:00:00Z');
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
const worker = (id: string, pool: string, lastSeenSecondsAgo: number, concurrency = 2): WorkerBeat => ({
  id,
  pool,
  host: 'h',
  pid: 1,
  concurrency,
  running: 0,
  startedAt: ago(3600),
  lastSeenAt: ago(lastSeenSecondsAgo),
});
const depth = (pool: string, waiting: number, active = 0, oldestWaitingSeconds?: number): PoolQueueDepth => ({
  pool,
  waiting,
  active,
  ...(oldestWaitingSeconds !== undefined ? { oldestWaitingSeconds } : {}),
});
const STALE = 30_000;

describe('pool health', () => {
  it('counts live workers and their capacity, and sums the queue of every row', () => {
    const [prod] = poolHealth(
      ['prod'],
      [worker('a', 'prod', 5), worker('b', 'prod', 10, 4), worker('dead', 'prod', 120), worker('x', 'nonprod', 1)],
      [depth('prod', 3, 2, 40), depth('prod', 1, 1, 90)],
      now,
      STALE,
    );
    expect(prod).toEqual({
      pool: 'prod',
      liveWorkers: 2,
      capacity: 6,
      waiting: 4,
      active: 3,
      oldestWaitingSeconds: 90,
    });
  });

  it('says since when work has waited with no live worker: the last heartbeat, else the oldest job', () => {
    const health = poolHealth(
      ['prod', 'nonprod', 'idle'],
      [worker('gone', 'prod', 400), worker('older', 'prod', 900)],
      [depth('prod', 1, 0, 60), depth('nonprod', 2, 0, 420)],
      now,
      STALE,
    );
    expect(health.map((h) => h.unservedSince?.toISOString())).toEqual([
      ago(400).toISOString(),
      ago(420).toISOString(),
      undefined,
    ]);
    expect(unservedPools(health, now, 5 * 60_000).map((h) => h.pool)).toEqual(['prod', 'nonprod']);
    expect(unservedPools(health, now, 7 * 60_000).map((h) => h.pool)).toEqual(['nonprod']);
    expect(unservedPools(health, now, 8 * 60_000)).toEqual([]);
  });

  it('does not call a pool unserved when nothing waits, or when a live worker is busy', () => {
    const health = poolHealth(
      ['prod', 'nonprod'],
      [worker('busy', 'nonprod', 2)],
      [depth('prod', 0), depth('nonprod', 5, 2, 600)],
      now,
      STALE,
    );
    expect(health.every((h) => h.unservedSince === undefined)).toBe(true);
  });
});
