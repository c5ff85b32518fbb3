import { describe, expect, it } from 'vitest';
import { manualClock } from '../temp-store.js';
import { counts, type StoreContractTarget } from './target.js';

/** Stack records (status, drift, same-plan count) and stack locks. */
export function stacksContract(target: StoreContractTarget): void {
  describe('stacks', () => {
    it('upserts, sets status and remembers the last applied commit', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
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

    it('keeps a blocked stack blocked whatever a check reports, until unblocked', async () => {
      const store = await target.open();
      await store.blockStack('net', 'apply interrupted');
      await store.setStackStatus('net', 'in_sync');
      expect(await store.getStack('net')).toMatchObject({ status: 'blocked', blockedReason: 'apply interrupted' });
      await store.unblockStack('net');
      expect(await store.getStack('net')).toEqual({ name: 'net', status: 'unknown', lastCheckAt: expect.any(Date) });
      await store.setStackStatus('net', 'drifted');
      expect((await store.getStack('net'))?.status).toBe('drifted');
    });

    it('opens a drift once per fingerprint; the same one moves to the newest run and refreshes lastSeenAt', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
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

    it('opens a drift recorded by two connections at once exactly once', async () => {
      const a = await target.open();
      const b = await target.open();
      for (let i = 0; i < 10; i++) {
        const drift = { fingerprint: `fp${i}`, runId: `r_${i}`, counts: counts(1) };
        const opened = await Promise.all([a.openDrift('net', drift), b.openDrift('net', drift)]);
        expect(opened.filter(Boolean)).toHaveLength(1);
      }
    });

    it('counts checks in a row with the same plan; another plan starts over, a clean one ends the count', async () => {
      const store = await target.open();
      expect(await store.countSamePlan('net', 'f1')).toBe(1);
      expect((await store.getStack('net'))?.samePlan).toBeUndefined();
      expect(await store.countSamePlan('net', 'f1')).toBe(2);
      expect((await store.getStack('net'))?.samePlan).toEqual({ fingerprint: 'f1', checks: 2 });
      expect(await store.countSamePlan('net', 'f2')).toBe(1);
      expect(await store.countSamePlan('net', 'f2')).toBe(2);
      expect(await (await target.open()).countSamePlan('net', 'f2')).toBe(3);
      expect(await store.countSamePlan('net', undefined)).toBe(0);
      expect((await store.getStack('net'))?.samePlan).toBeUndefined();
      expect(await store.countSamePlan('net', 'f2')).toBe(1);
    });
  });

  describe('stack locks', () => {
    it('grants a free lock, refuses a held one naming the holder, and locks stacks apart', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      const got = await store.acquireLock('net', 'r_a', 10_000);
      expect(got).toMatchObject({
        acquired: true,
        lock: {
          stack: 'net',
          runId: 'r_a',
          acquiredAt: clock.now(),
          expiresAt: new Date(clock.now().getTime() + 10_000),
        },
      });
      const refused = await store.acquireLock('net', 'r_b', 10_000);
      expect(refused).toEqual({ acquired: false, holder: got.acquired && got.lock });
      expect(await store.getLock('net')).toEqual(got.acquired && got.lock);
      expect((await store.acquireLock('other', 'r_b', 10_000)).acquired).toBe(true);
    });

    it('lets another run take over an expired lock; the old holder can then neither renew nor release it', async () => {
      const clock = manualClock();
      const a = await target.open({ now: clock.now });
      const b = await target.open({ now: clock.now });
      await a.acquireLock('net', 'r_a', 10_000);
      clock.advance(9_999);
      expect((await b.acquireLock('net', 'r_b', 10_000)).acquired).toBe(false);
      clock.advance(1);
      expect(await b.getLock('net')).toBeUndefined();
      expect(await b.acquireLock('net', 'r_b', 10_000)).toMatchObject({
        acquired: true,
        lock: { runId: 'r_b', acquiredAt: clock.now() },
      });
      expect(await a.renewLock('net', 'r_a', 10_000)).toBe(false);
      await a.releaseLock('net', 'r_a');
      expect((await a.getLock('net'))?.runId).toBe('r_b');
    });

    it('renews by the holder only, re-acquires for the same run keeping its start, and breaks', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      const start = clock.now();
      await store.acquireLock('net', 'r_a', 10_000);
      clock.advance(8_000);
      expect(await store.renewLock('net', 'r_b', 10_000)).toBe(false);
      expect(await store.renewLock('net', 'r_a', 10_000)).toBe(true);
      clock.advance(8_000);
      expect((await store.acquireLock('net', 'r_b', 10_000)).acquired).toBe(false);
      expect(await store.acquireLock('net', 'r_a', 10_000)).toMatchObject({
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

    it('gives a free or expired lock to exactly one of several runs asking at once', async () => {
      const clock = manualClock();
      const stores = await Promise.all([1, 2, 3].map(() => target.open({ now: clock.now })));
      for (let round = 0; round < 5; round++) {
        const results = await Promise.all(stores.map((s, i) => s.acquireLock('net', `r_${round}_${i}`, 10_000)));
        expect(results.filter((r) => r.acquired)).toHaveLength(1);
        clock.advance(10_000); // expired: the next round takes it over
      }
    });
  });
}
