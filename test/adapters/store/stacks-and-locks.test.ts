import { describe, expect, it } from 'vitest';
import { processOwner } from '../../../src/adapters/store/process-owner.js';
import { manualClock, useTempStore } from './temp-store.js';

const counts = (create: number) => ({ create, update: 0, delete: 0, replace: 0, read: 0 });

describe('stack records', () => {
  const tmp = useTempStore();

  it('upserts, sets status and remembers the last applied commit', async () => {
    const clock = manualClock();
    const store = tmp.open({ now: clock.now });
    expect(await store.upsertStack('net')).toEqual({ name: 'net', status: 'unknown' });
    expect(await store.upsertStack('net')).toEqual({ name: 'net', status: 'unknown' });
    await store.setStackStatus('net', 'in_sync', 'r_1');
    await store.setLastAppliedCommit('net', 'deadbeef');
    await store.setStackStatus('app', 'errored');
    expect(await store.getStack('net')).toEqual({
      name: 'net',
      status: 'in_sync',
      lastCheckAt: clock.now(),
      lastRunId: 'r_1',
      lastAppliedCommit: 'deadbeef',
    });
    expect((await store.listStacks()).map((s) => [s.name, s.status])).toEqual([
      ['app', 'errored'],
      ['net', 'in_sync'],
    ]);
    expect(await store.getStack('missing')).toBeUndefined();
  });

  it('opens a drift once per fingerprint; the same fingerprint moves it to the newest run and refreshes lastSeenAt', async () => {
    const clock = manualClock();
    const store = tmp.open({ now: clock.now });
    const start = clock.now();
    expect(await store.openDrift('net', { fingerprint: 'fp1', runId: 'r_1', counts: counts(1) })).toBe(true);
    clock.advance(60_000);
    expect(await store.openDrift('net', { fingerprint: 'fp1', runId: 'r_2', counts: counts(1) })).toBe(false);
    expect((await store.getStack('net'))?.openDrift).toEqual({
      fingerprint: 'fp1',
      runId: 'r_2',
      firstSeenAt: start,
      lastSeenAt: clock.now(),
      counts: counts(1),
    });
    clock.advance(60_000);
    expect(await store.openDrift('net', { fingerprint: 'fp2', runId: 'r_3', counts: counts(2) })).toBe(true);
    const open = (await store.getStack('net'))?.openDrift;
    expect(open).toEqual({
      fingerprint: 'fp2',
      runId: 'r_3',
      firstSeenAt: clock.now(),
      lastSeenAt: clock.now(),
      counts: counts(2),
    });
    expect(await store.closeDrift('net')).toEqual(open);
    expect(await store.closeDrift('net')).toBeUndefined();
    expect((await store.getStack('net'))?.openDrift).toBeUndefined();
    expect(await store.openDrift('net', { fingerprint: 'fp2', runId: 'r_4', counts: counts(2) })).toBe(true);
  });

  it('keeps a blocked stack blocked whatever a check reports, until unblocked', async () => {
    const store = tmp.open();
    await store.blockStack('net', 'apply interrupted');
    await store.setStackStatus('net', 'in_sync');
    expect(await store.getStack('net')).toMatchObject({ status: 'blocked', blockedReason: 'apply interrupted' });
    await store.unblockStack('net');
    expect((await store.getStack('net'))?.status).toBe('unknown');
    expect((await store.getStack('net'))?.blockedReason).toBeUndefined();
    await store.setStackStatus('net', 'drifted');
    expect((await store.getStack('net'))?.status).toBe('drifted');
  });
});

describe('stack locks', () => {
  const tmp = useTempStore();

  it('grants a free lock, refuses a held one and names the holder', async () => {
    const clock = manualClock();
    const store = tmp.open({ now: clock.now });
    const got = await store.acquireLock('net', 'r_a', 10_000);
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
    const refused = await store.acquireLock('net', 'r_b', 10_000);
    expect(refused).toEqual({ acquired: false, holder: got.acquired && got.lock });
    expect((await store.acquireLock('other', 'r_b', 10_000)).acquired).toBe(true);
  });

  it('lets another run take over an expired lock, after which the old holder cannot renew or release it', async () => {
    const clock = manualClock();
    const a = tmp.open({ now: clock.now });
    const b = tmp.open({ now: clock.now });
    await a.acquireLock('net', 'r_a', 10_000);
    clock.advance(9_999);
    expect((await b.acquireLock('net', 'r_b', 10_000)).acquired).toBe(false);
    clock.advance(1);
    expect(await b.getLock('net')).toBeUndefined();
    const taken = await b.acquireLock('net', 'r_b', 10_000);
    expect(taken).toMatchObject({ acquired: true, lock: { runId: 'r_b', acquiredAt: clock.now() } });
    expect(await a.renewLock('net', 'r_a', 10_000)).toBe(false);
    await a.releaseLock('net', 'r_a');
    expect((await a.getLock('net'))?.runId).toBe('r_b');
  });

  it('renews by heartbeat, re-acquires for the same run, releases only for the holder, and breaks', async () => {
    const clock = manualClock();
    const store = tmp.open({ now: clock.now });
    const start = clock.now();
    await store.acquireLock('net', 'r_a', 10_000);
    clock.advance(8_000);
    expect(await store.renewLock('net', 'r_a', 10_000)).toBe(true);
    clock.advance(8_000);
    expect((await store.acquireLock('net', 'r_b', 10_000)).acquired).toBe(false);
    const again = await store.acquireLock('net', 'r_a', 10_000);
    expect(again).toMatchObject({
      acquired: true,
      lock: { acquiredAt: start, expiresAt: new Date(clock.now().getTime() + 10_000) },
    });
    await store.releaseLock('net', 'r_b');
    expect((await store.getLock('net'))?.runId).toBe('r_a');
    expect((await store.breakLock('net'))?.runId).toBe('r_a');
    expect(await store.breakLock('net')).toBeUndefined();
    expect(await store.renewLock('net', 'r_a', 10_000)).toBe(false);
    expect((await store.acquireLock('net', 'r_b', 10_000)).acquired).toBe(true);
    await store.releaseLock('net', 'r_b');
    expect(await store.getLock('net')).toBeUndefined();
  });
});
