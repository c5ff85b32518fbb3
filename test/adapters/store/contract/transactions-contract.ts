import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../../src/ports/store.js';
import { manualClock } from '../temp-store.js';
import { counts, type StoreContractTarget } from './target.js';

/** `atomically`: all of a transaction's writes or none, and transactions that do not interleave. */
export function transactionsContract(target: StoreContractTarget): void {
  describe('atomically', () => {
    /** Writes through every part of the store; returns the run it created. */
    const writeEverywhere = async (tx: Store, now: Date) => {
      const run = await tx.createRun({ stack: 'net', trigger: 'schedule' });
      await tx.transition(run.id, 'planning', 'drifted', { kind: 'drift', fingerprint: 'f1', counts: counts(1) });
      await tx.announce(run.id, { type: 'drift_detected' });
      await tx.openDrift('net', { fingerprint: 'f1', runId: run.id, counts: counts(1) });
      await tx.setStackStatus('net', 'drifted', run.id);
      await tx.countSamePlan('net', 'f1');
      await tx.acquireLock('net', run.id, 60_000);
      await tx.appendAudit({ at: now, actor: 'system', action: 'plan', runId: run.id, stack: 'net' });
      await tx.addApproval({ runId: run.id, userId: 'U1', at: now });
      await tx.enqueue({ key: run.id, method: 'chat.postMessage', payload: {}, recordMessageFor: run.id });
      await tx.snooze('net', 'f1', new Date(now.getTime() + 1000));
      return run;
    };

    it('commits every write of the work and returns its value; inside, the work reads its own writes', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      const run = await store.atomically(async (tx) => {
        const created = await writeEverywhere(tx, clock.now());
        expect((await tx.getRun(created.id))?.state).toBe('drifted');
        // Calls in flight together, and a nested transaction, join this one.
        await Promise.all([
          tx.upsertStack('a'),
          tx.openDrift('b', { fingerprint: 'f2', runId: created.id, counts: counts(2) }),
          tx.atomically((inner) => inner.setStackStatus('c', 'in_sync')),
        ]);
        return created;
      });
      const other = await target.open({ now: clock.now });
      expect((await other.getRun(run.id))?.state).toBe('drifted');
      expect((await other.getStack('net'))?.openDrift?.runId).toBe(run.id);
      expect((await other.getLock('net'))?.runId).toBe(run.id);
      expect(await other.listAudit()).toHaveLength(1);
      expect(await other.pendingCount()).toBe(1);
      expect((await other.listStacks()).map((s) => s.name)).toEqual(['a', 'b', 'c', 'net']);
    });

    it('rolls back every write when the work throws, and hands the error on', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      const failure = new Error('died here');
      let created: string | undefined;
      await expect(
        store.atomically(async (tx) => {
          created = (await writeEverywhere(tx, clock.now())).id;
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(created).toBeDefined();
      const other = await target.open({ now: clock.now });
      for (const s of [store, other]) {
        expect(await s.getRun(created!)).toBeUndefined();
        expect(await s.listRuns()).toEqual([]);
        expect(await s.getStack('net')).toBeUndefined();
        expect(await s.getLock('net')).toBeUndefined();
        expect(await s.listAudit()).toEqual([]);
        expect(await s.listApprovals(created!)).toEqual([]);
        expect(await s.pendingCount()).toBe(0);
        expect(await s.listUnannounced()).toEqual([]);
        expect(await s.isSnoozed('net', 'f1', clock.now())).toBe(false);
      }
      // The store works on after a rolled-back transaction.
      expect((await store.createRun({ stack: 'net', trigger: 'manual' })).state).toBe('planning');
    });

    it('runs concurrent transactions one after the other: none reads what another is about to change', async () => {
      // One store, as one process has: SQLite serializes them on its connection, Postgres across connections.
      const store = await target.open();
      const callers = Array.from({ length: 6 }, (_, i) => `caller-${i}`);
      await Promise.all(callers.map((actor) => countInTransaction(store, actor)));
      const entries = await store.listAudit();
      expect(entries.map((e) => e.detail?.seen)).toEqual(callers.map((_, i) => i));
    });
  });
}

/**
 * Reads how many audit entries there are, lets other work run, then appends one saying what it read: in
 * transactions that do not interleave, the entries say 0, 1, 2… in order.
 */
export function countInTransaction(store: Store, actor: string): Promise<void> {
  return store.atomically(async (tx) => {
    const seen = (await tx.listAudit()).length;
    // Give any other transaction the chance to run in between, as real work (I/O) would.
    await yieldToLoop();
    await yieldToLoop();
    await tx.appendAudit({ at: new Date(), actor, action: 'count', detail: { seen } });
  });
}
