import { describe, expect, it } from 'vitest';
import type { PoolHealth } from '../../../src/domain/pool/pool-health.js';
import { poolNotices } from '../../../src/domain/pool/pool-notices.js';

const now = new Date('2026-12-04T10:00:00Z');
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
const AFTER = 5 * 60_000;
const pool = (name: string, over: Partial<PoolHealth> = {}): PoolHealth => ({
  pool: name,
  liveWorkers: 0,
  capacity: 0,
  waiting: 2,
  active: 0,
  ...over,
});

describe('pool notices', () => {
  it.each([
    ['unserved for less than unservedAlertAfter', new Map(), [pool('prod', { unservedSince: minutesAgo(4) })], []],
    [
      'unserved for unservedAlertAfter',
      new Map(),
      [pool('prod', { unservedSince: minutesAgo(5) })],
      [{ kind: 'unserved', pool: 'prod', since: minutesAgo(5) }],
    ],
    [
      'already told, still unserved',
      new Map([['prod', minutesAgo(9)]]),
      [pool('prod', { unservedSince: minutesAgo(9) })],
      [],
    ],
    [
      'told, and a worker is live again',
      new Map([['prod', minutesAgo(9)]]),
      [pool('prod', { liveWorkers: 1, capacity: 2 })],
      [{ kind: 'served', pool: 'prod', since: minutesAgo(9), health: { liveWorkers: 1 } }],
    ],
    [
      'told, and the pool is no longer read',
      new Map([['old', minutesAgo(9)]]),
      [],
      [{ kind: 'served', pool: 'old', since: minutesAgo(9) }],
    ],
    ['never told, served', new Map(), [pool('prod', { liveWorkers: 1 })], []],
  ] as const)('%s', (_case, told, health, expected) => {
    const notices = poolNotices(told as ReadonlyMap<string, Date>, health, now, AFTER);
    expect(notices).toHaveLength(expected.length);
    for (const [i, want] of expected.entries()) expect(notices[i]).toMatchObject({ ...want, at: now });
  });
});
