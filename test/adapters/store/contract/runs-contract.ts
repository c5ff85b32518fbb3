import { describe, expect, it } from 'vitest';
import { InvalidTransitionError } from '../../../../src/domain/errors.js';
import { manualClock } from '../temp-store.js';
import { approvedRun, counts, type StoreContractTarget } from './target.js';

/** Runs: creation, compare-and-set transitions, recovery after a crash, plan signatures, announcements. */
export function runsContract(target: StoreContractTarget): void {
  describe('runs', () => {
    it('creates runs in planning with time-sortable ids and applies patches on transition', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      const first = await store.createRun({ stack: 'net', trigger: 'manual' });
      clock.advance(1);
      const second = await store.createRun({ stack: 'net', trigger: 'schedule' });
      expect(first).toMatchObject({
        state: 'planning',
        trigger: 'manual',
        createdAt: new Date(clock.now().getTime() - 1),
      });
      expect(first.id).toMatch(/^r_[0-9a-z]+_[0-9a-z]+$/);
      expect(first.id < second.id).toBe(true);
      expect((await store.getStack('net'))?.status).toBe('unknown');

      clock.advance(1000);
      const drifted = await store.transition(first.id, 'planning', 'drifted', {
        kind: 'drift',
        fingerprint: 'fp1',
        counts: counts(3),
      });
      expect(drifted).toMatchObject({ state: 'drifted', kind: 'drift', fingerprint: 'fp1', counts: counts(3) });
      expect(drifted!.updatedAt.getTime() - drifted!.createdAt.getTime()).toBe(1001);
      expect(drifted!.finishedAt).toBeUndefined();

      const expired = await store.transition(first.id, ['drifted', 'pending_approval'], 'expired');
      expect(expired).toMatchObject({ state: 'expired', finishedAt: clock.now(), fingerprint: 'fp1' });
      expect(await store.getRun(first.id)).toEqual(expired);
      expect((await store.listRuns({ stack: 'net' })).map((r) => r.id)).toEqual([second.id, first.id]);
      expect((await store.listRuns({ states: ['planning'] })).map((r) => r.id)).toEqual([second.id]);
      expect((await store.listRuns({ limit: 1 })).map((r) => r.id)).toEqual([second.id]);
      expect(await store.listRuns({ states: [] })).toEqual([]);
      expect(await store.listRuns({ stack: 'other' })).toEqual([]);
    });

    it('returns undefined when the run is no longer in the expected state, or does not exist', async () => {
      const store = await target.open();
      const run = await store.createRun({ stack: 'net', trigger: 'manual' });
      expect(await store.transition(run.id, 'pending_approval', 'approved')).toBeUndefined();
      expect(await store.transition('r_missing', 'planning', 'errored')).toBeUndefined();
      expect(await store.getRun(run.id)).toEqual(run);
    });

    it('refuses a pair the state machine forbids with InvalidTransitionError, writing nothing', async () => {
      const store = await target.open();
      const run = await store.createRun({ stack: 'net', trigger: 'manual' });
      await expect(store.transition(run.id, 'planning', 'applied')).rejects.toBeInstanceOf(InvalidTransitionError);
      await expect(store.transition(run.id, ['planning', 'applied'], 'errored')).rejects.toThrow(
        /cannot move from applied to errored/,
      );
      await expect(store.transition(run.id, [], 'errored')).rejects.toBeInstanceOf(InvalidTransitionError);
      expect(await store.getRun(run.id)).toEqual(run);
    });

    it('lets exactly one of two concurrent transitions from the same state win, on two connections', async () => {
      const a = await target.open();
      const b = await target.open();
      for (let i = 0; i < 20; i++) {
        const run = await approvedRun(a, `stack-${i % 3}`);
        const results = await Promise.all([
          a.transition(run.id, 'approved', 'applying'),
          b.transition(run.id, ['approved', 'pending_approval'], 'applying'),
        ]);
        expect(results.filter(Boolean)).toHaveLength(1);
        expect((await b.getRun(run.id))?.state).toBe('applying');
      }
    });

    it('interrupts the in-flight runs of a stopped process, blocks the stack of an apply and frees their locks', async () => {
      const clock = manualClock();
      const before = await target.open({ now: clock.now });
      const planning = await before.createRun({ stack: 'plan-stack', trigger: 'schedule' });
      await before.acquireLock('plan-stack', planning.id, 60_000);
      const applying = await before.createRun({ stack: 'apply-stack', trigger: 'manual' });
      await before.transition(applying.id, 'planning', 'pending_approval');
      await before.transition(applying.id, 'pending_approval', 'applying');
      await before.acquireLock('apply-stack', applying.id, 60_000);
      const waiting = await before.createRun({ stack: 'waiting-stack', trigger: 'schedule' });
      await before.transition(waiting.id, 'planning', 'drifted');
      await before.close(); // the crash; the runs' owner is this process, whose own runs count as left over

      clock.advance(5_000);
      const after = await target.open({ now: clock.now });
      const changed = await after.recoverInterrupted();
      expect(changed.map((r) => r.id).sort()).toEqual([planning.id, applying.id].sort());
      expect(await after.getRun(planning.id)).toMatchObject({ state: 'interrupted', finishedAt: clock.now() });
      expect((await after.getRun(planning.id))?.error).toMatch(/stopped during the plan step/);
      expect((await after.getRun(applying.id))?.error).toMatch(/stopped during the apply step/);
      expect((await after.getRun(waiting.id))?.state).toBe('drifted');
      expect(await after.getStack('apply-stack')).toMatchObject({
        status: 'blocked',
        blockedReason: expect.stringMatching(/interrupted.*half applied/),
      });
      expect((await after.getStack('plan-stack'))?.blockedReason).toBeUndefined();
      expect(await after.getLock('plan-stack')).toBeUndefined();
      expect(await after.getLock('apply-stack')).toBeUndefined();
      expect(await after.recoverInterrupted()).toEqual([]);
    });

    it('keeps the runs of its own process when told they are live (it took the lead again while running)', async () => {
      const store = await target.open();
      const planning = await store.createRun({ stack: 'plan-stack', trigger: 'schedule' });
      await store.acquireLock('plan-stack', planning.id, 60_000);
      expect(await store.recoverInterrupted({ ownRunsLive: true })).toEqual([]);
      expect((await store.getRun(planning.id))?.state).toBe('planning');
      expect(await store.getLock('plan-stack')).toMatchObject({ runId: planning.id });
      // One whose end could not be recorded released its lock: left over.
      const stranded = await store.createRun({ stack: 'apply-stack', trigger: 'manual' });
      await store.transition(stranded.id, 'planning', 'pending_approval');
      await store.transition(stranded.id, 'pending_approval', 'applying');
      expect((await store.recoverInterrupted({ ownRunsLive: true })).map((r) => r.id)).toEqual([stranded.id]);
      expect((await store.getStack('apply-stack'))?.status).toBe('blocked');
      // At start the same runs are an earlier serve's of this process: left over.
      expect((await store.recoverInterrupted()).map((r) => r.id)).toEqual([planning.id]);
    });

    it("in the leader's sweep, interrupts its own runs only once old enough and no longer holding their lock", async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      const sweep = () => store.recoverInterrupted({ othersOlderThanMs: 30_000 });
      // A check this process drives: just created (its lock comes a moment later), then holding its lock.
      const checking = await store.createRun({ stack: 'plan-stack', trigger: 'schedule' });
      expect(await sweep()).toEqual([]);
      await store.acquireLock('plan-stack', checking.id, 600_000);
      clock.advance(40_000);
      expect(await sweep()).toEqual([]);
      // An apply whose end could not be recorded (the store was out of reach): its lock lapsed at its TTL.
      const stranded = await store.createRun({ stack: 'apply-stack', trigger: 'manual' });
      await store.transition(stranded.id, 'planning', 'pending_approval');
      await store.transition(stranded.id, 'pending_approval', 'applying');
      await store.acquireLock('apply-stack', stranded.id, 10_000);
      clock.advance(5_000);
      expect(await sweep()).toEqual([]);
      clock.advance(30_000);
      expect((await sweep()).map((r) => r.id)).toEqual([stranded.id]);
      expect((await store.getStack('apply-stack'))?.status).toBe('blocked');
      expect((await store.getRun(checking.id))?.state).toBe('planning');
    });

    it('finds the latest other run with the same plan signature', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      const first = await store.createRun({ stack: 'net', trigger: 'schedule' });
      clock.advance(1);
      const second = await store.createRun({ stack: 'net', trigger: 'schedule' });
      clock.advance(1);
      const third = await store.createRun({ stack: 'net', trigger: 'schedule' });
      const elsewhere = await store.createRun({ stack: 'app', trigger: 'schedule' });
      for (const run of [first, second, third, elsewhere]) await store.setPlanSignature(run.id, 'sig-a');
      await store.setPlanSignature(third.id, 'sig-b');
      expect((await store.lastRunWithPlanSignature('net', 'sig-a', third.id))?.id).toBe(second.id);
      expect((await store.lastRunWithPlanSignature('net', 'sig-a', second.id))?.id).toBe(first.id);
      expect(await store.lastRunWithPlanSignature('net', 'sig-b', third.id)).toBeUndefined();
    });

    it('lists recorded announcements until announced', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      const run = await store.createRun({ stack: 'net', trigger: 'schedule' });
      await store.transition(run.id, 'planning', 'drifted', { kind: 'drift', fingerprint: 'f1' });
      clock.advance(1);
      const other = await store.createRun({ stack: 'app', trigger: 'schedule' });
      expect(await store.listUnannounced()).toEqual([]);
      await store.announce(run.id, { type: 'drift_detected' });
      await store.announce(other.id, { type: 'drift_resolved', previousFingerprint: 'f0', previousRunId: 'r_0' });
      await store.announce(run.id, { type: 'plan_refreshed', previousRunId: 'r_9', notConverging: 3 });
      const listed = await (await target.open({ now: clock.now })).listUnannounced();
      expect(listed.map(({ run, announcement }) => [run.id, run.state, announcement])).toEqual([
        [run.id, 'drifted', { type: 'plan_refreshed', previousRunId: 'r_9', notConverging: 3 }],
        [other.id, 'planning', { type: 'drift_resolved', previousFingerprint: 'f0', previousRunId: 'r_0' }],
      ]);
      await store.announced(run.id);
      expect((await store.listUnannounced()).map((u) => u.run.id)).toEqual([other.id]);
    });
  });
}
