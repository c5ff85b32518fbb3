import { describe, expect, it } from 'vitest';
import { InvalidTransitionError } from '../../../src/domain/errors.js';
import type { RunStore } from '../../../src/ports/store.js';
import { HAS_RACE_WORKER, RACE_WORKER, raceWorkers } from './race-workers.js';
import { manualClock, useTempStore } from './temp-store.js';

async function approvedRun(store: RunStore, stack = 'net') {
  const run = await store.createRun({ stack, trigger: 'schedule', commitSha: 'abc123' });
  await store.transition(run.id, 'planning', 'pending_approval', {
    kind: 'pending_change',
    planSha256: 'f'.repeat(64),
  });
  return (await store.transition(run.id, 'pending_approval', 'approved'))!;
}

describe('run transitions', () => {
  const tmp = useTempStore();

  it('creates runs in planning with time-sortable ids and applies patches on transition', async () => {
    const clock = manualClock();
    const store = tmp.open({ now: clock.now });
    const first = await store.createRun({ stack: 'net', trigger: 'manual' });
    clock.advance(1);
    const second = await store.createRun({ stack: 'net', trigger: 'schedule' });
    expect(first.state).toBe('planning');
    expect(first.id).toMatch(/^r_[0-9a-z]+_[0-9a-z]+$/);
    expect(first.id < second.id).toBe(true);
    expect((await store.getStack('net'))?.status).toBe('unknown');

    clock.advance(1000);
    const counts = { create: 1, update: 2, delete: 0, replace: 1, read: 0 };
    const drifted = (await store.transition(first.id, 'planning', 'drifted', {
      kind: 'drift',
      fingerprint: 'fp1',
      counts,
    }))!;
    expect(drifted).toMatchObject({ state: 'drifted', kind: 'drift', fingerprint: 'fp1', counts, trigger: 'manual' });
    expect(drifted.updatedAt.getTime() - drifted.createdAt.getTime()).toBe(1001);
    expect(drifted.finishedAt).toBeUndefined();

    const expired = (await store.transition(first.id, ['drifted', 'pending_approval'], 'expired'))!;
    expect(expired.finishedAt).toEqual(clock.now());
    expect(expired.fingerprint).toBe('fp1');
    expect((await store.listRuns({ stack: 'net' })).map((r) => r.id)).toEqual([second.id, first.id]);
    expect((await store.listRuns({ states: ['planning'] })).map((r) => r.id)).toEqual([second.id]);
    expect((await store.listRuns({ limit: 1 })).map((r) => r.id)).toEqual([second.id]);
  });

  it('returns undefined when the run is no longer in the expected state, or does not exist', async () => {
    const store = tmp.open();
    const run = await store.createRun({ stack: 'net', trigger: 'manual' });
    expect(await store.transition(run.id, 'pending_approval', 'approved')).toBeUndefined();
    expect(await store.transition('r_missing', 'planning', 'errored')).toBeUndefined();
    expect((await store.getRun(run.id))?.state).toBe('planning');
  });

  it('throws InvalidTransitionError for a pair the state machine forbids, leaving the row untouched', async () => {
    const store = tmp.open();
    const run = await store.createRun({ stack: 'net', trigger: 'manual' });
    await expect(store.transition(run.id, 'planning', 'applied')).rejects.toThrow(InvalidTransitionError);
    await expect(store.transition(run.id, ['planning', 'applied'], 'errored')).rejects.toThrow(
      /cannot move from applied to errored/,
    );
    await expect(store.transition(run.id, [], 'errored')).rejects.toThrow(InvalidTransitionError);
    expect(await store.getRun(run.id)).toEqual(run);
  });

  it('lets exactly one of two connections on the same file win approved -> applying', async () => {
    const a = tmp.open();
    const b = tmp.open();
    for (let i = 0; i < 50; i++) {
      const run = await approvedRun(a);
      const [first, second] = i % 2 === 0 ? [a, b] : [b, a];
      const results = [
        await first.transition(run.id, 'approved', 'applying'),
        await second.transition(run.id, 'approved', 'applying'),
      ];
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await b.getRun(run.id))?.state).toBe('applying');
    }
  });

  it.skipIf(!HAS_RACE_WORKER)(
    'lets exactly one of several concurrent processes win each run (needs `npm run build`)',
    async () => {
      const store = tmp.open();
      const ids: string[] = [];
      for (let i = 0; i < 200; i++) ids.push((await approvedRun(store, `stack-${i % 7}`)).id);
      const wins = await raceWorkers(RACE_WORKER, tmp.path, ids, 4);
      const all = wins.flat();
      expect(all.sort()).toEqual([...ids].sort());
      expect(new Set(all).size).toBe(ids.length);
      expect(await store.listRuns({ states: ['applying'] })).toHaveLength(ids.length);
    },
  );
});
