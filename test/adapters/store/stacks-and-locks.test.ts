import { describe, expect, it } from 'vitest';
import { processOwner } from '../../../src/adapters/store/process-owner.js';
import { manualClock, useTempStore } from './temp-store.js';

const counts = (create: number) => ({ create, update: 0, delete: 0, replace: 0, read: 0 });

describe('stack records', () => {
  const tmp = useTempStore();

  it('upserts, sets status and remembers the last applied commit', () => {
    const clock = manualClock();
    const store = tmp.open({ now: clock.now });
    expect(store.upsertStack('net')).toEqual({ name: 'net', status: 'unknown' });
    expect(store.upsertStack('net')).toEqual({ name: 'net', status: 'unknown' });
    store.setStackStatus('net', 'in_sync', 'r_1');
    store.setLastAppliedCommit('net', 'deadbeef');
    store.setStackStatus('app', 'errored');
    expect(store.getStack('net')).toEqual({
      name: 'net',
      status: 'in_sync',
      lastCheckAt: clock.now(),
      lastRunId: 'r_1',
      lastAppliedCommit: 'deadbeef',
    });
    expect(store.listStacks().map((s) => [s.name, s.status])).toEqual([
      ['app', 'errored'],
      ['net', 'in_sync'],
    ]);
    expect(store.getStack('missing')).toBeUndefined();
  });

  it('opens a drift once per fingerprint; the same fingerprint moves it to the newest run and refreshes lastSeenAt', () => {
    const clock = manualClock();
    const store = tmp.open({ now: clock.now });
    const start = clock.now();
    expect(store.openDrift('net', { fingerprint: 'fp1', runId: 'r_1', counts: counts(1) })).toBe(true);
    clock.advance(60_000);
    expect(store.openDrift('net', { fingerprint: 'fp1', runId: 'r_2', counts: counts(1) })).toBe(false);
    expect(store.getStack('net')?.openDrift).toEqual({
      fingerprint: 'fp1',
      runId: 'r_2',
      firstSeenAt: start,
      lastSeenAt: clock.now(),
      counts: counts(1),
    });
    clock.advance(60_000);
    expect(store.openDrift('net', { fingerprint: 'fp2', runId: 'r_3', counts: counts(2) })).toBe(true);
    const open = store.getStack('net')?.openDrift;
    expect(open).toEqual({
      fingerprint: 'fp2',
      runId: 'r_3',
      firstSeenAt: clock.now(),
      lastSeenAt: clock.now(),
      counts: counts(2),
    });
    expect(store.closeDrift('net')).toEqual(open);
    expect(store.closeDrift('net')).toBeUndefined();
    expect(store.getStack('net')?.openDrift).toBeUndefined();
    expect(store.openDrift('net', { fingerprint: 'fp2', runId: 'r_4', counts: counts(2) })).toBe(true);
  });

  it('keeps a blocked stack blocked whatever a check reports, until unblocked', () => {
    const store = tmp.open();
    store.blockStack('net', 'apply interrupted');
    store.setStackStatus('net', 'in_sync');
    expect(store.getStack('net')).toMatchObject({ status: 'blocked', blockedReason: 'apply interrupted' });
    store.unblockStack('net');
    expect(store.getStack('net')?.status).toBe('unknown');
    expect(store.getStack('net')?.blockedReason).toBeUndefined();
    store.setStackStatus('net', 'drifted');
    expect(store.getStack('net')?.status).toBe('drifted');
  });
});

describe('stack locks', () => {
  const tmp = useTempStore();

  it('grants a free lock, refuses a held one and names the holder', () => {
    const clock = manualClock();
    const store = tmp.open({ now: clock.now });
    const got = store.acquireLock('net', 'r_a', 10_000);
    expect(got).toEqual({
      acquired: true,
      lock: {
        stack: 'net',
        runId: 'r_a',
        acquiredAt: clock.now(),
        expiresAt: new Date(clock.now().getTime() + 10_000),
        owner: processOwner(),
      },
    });
    const refused = store.acquireLock('net', 'r_b', 10_000);
    expect(refused).toEqual({ acquired: false, holder: got.acquired && got.lock });
    expect(store.acquireLock('other', 'r_b', 10_000).acquired).toBe(true);
  });

  it('lets another run take over an expired lock, after which the old holder cannot renew or release it', () => {
    const clock = manualClock();
    const a = tmp.open({ now: clock.now });
    const b = tmp.open({ now: clock.now });
    a.acquireLock('net', 'r_a', 10_000);
    clock.advance(9_999);
    expect(b.acquireLock('net', 'r_b', 10_000).acquired).toBe(false);
    clock.advance(1);
    expect(b.getLock('net')).toBeUndefined();
    const taken = b.acquireLock('net', 'r_b', 10_000);
    expect(taken).toMatchObject({ acquired: true, lock: { runId: 'r_b', acquiredAt: clock.now() } });
    expect(a.renewLock('net', 'r_a', 10_000)).toBe(false);
    a.releaseLock('net', 'r_a');
    expect(a.getLock('net')?.runId).toBe('r_b');
  });

  it('renews by heartbeat, re-acquires for the same run, releases only for the holder, and breaks', () => {
    const clock = manualClock();
    const store = tmp.open({ now: clock.now });
    const start = clock.now();
    store.acquireLock('net', 'r_a', 10_000);
    clock.advance(8_000);
    expect(store.renewLock('net', 'r_a', 10_000)).toBe(true);
    clock.advance(8_000);
    expect(store.acquireLock('net', 'r_b', 10_000).acquired).toBe(false);
    const again = store.acquireLock('net', 'r_a', 10_000);
    expect(again).toMatchObject({
      acquired: true,
      lock: { acquiredAt: start, expiresAt: new Date(clock.now().getTime() + 10_000) },
    });
    store.releaseLock('net', 'r_b');
    expect(store.getLock('net')?.runId).toBe('r_a');
    expect(store.breakLock('net')?.runId).toBe('r_a');
    expect(store.breakLock('net')).toBeUndefined();
    expect(store.renewLock('net', 'r_a', 10_000)).toBe(false);
    expect(store.acquireLock('net', 'r_b', 10_000).acquired).toBe(true);
    store.releaseLock('net', 'r_b');
    expect(store.getLock('net')).toBeUndefined();
  });
});
