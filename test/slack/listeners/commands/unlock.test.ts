import { describe, expect, it } from 'vitest';
import { handleUnlock } from '../../../../src/slack/listeners/commands/unlock.js';
import { LEAD1, OUTSIDER, STAGING, useListenerWorld, type ListenerWorld } from '../world.js';

const world = useListenerWorld();

/** STAGING blocked after an interrupted apply, its lock held by a run. */
async function blockedAndLocked(w: ListenerWorld): Promise<string> {
  const run = await w.run(STAGING, 'planning');
  expect((await w.store.acquireLock(STAGING, run.id, 3600_000)).acquired).toBe(true);
  await w.store.blockStack(STAGING, 'apply interrupted');
  return run.id;
}

describe('handleUnlock', () => {
  it('lifts the block and breaks the lock for an approver, audited with both', async () => {
    const w = await world();
    const runId = await blockedAndLocked(w);
    await handleUnlock(w.deps, { kind: 'unlock', stack: STAGING }, LEAD1, w.tell);
    expect(w.told).toEqual([
      expect.stringContaining(
        `${STAGING}: lifted the block (apply interrupted) and broke the lock of run ${runId}. The next check plans it again.`,
      ),
    ]);
    expect((await w.store.getStack(STAGING))?.blockedReason).toBeUndefined();
    expect(await w.store.getLock(STAGING)).toBeUndefined();
    expect(await w.store.listAudit({ stack: STAGING })).toMatchObject([
      { action: 'unlock', actor: LEAD1, detail: { blockedReason: 'apply interrupted', brokenLock: runId } },
    ]);
  });

  it('says there was nothing to do on a stack neither blocked nor locked, and still audits it', async () => {
    const w = await world();
    await handleUnlock(w.deps, { kind: 'unlock', stack: STAGING }, LEAD1, w.tell);
    expect(w.told).toEqual([expect.stringContaining(`${STAGING} was neither blocked nor locked; nothing to do.`)]);
    expect(await w.store.listAudit({ stack: STAGING })).toMatchObject([
      { action: 'unlock', detail: { blockedReason: null, brokenLock: null } },
    ]);
  });

  it.each([
    [
      'to someone in no approver group',
      OUTSIDER,
      [] as string[],
      'not_in_group',
      /Unlocking staging\/network takes someone who may approve its plans/,
    ],
    [
      'while a check or apply of the stack runs',
      LEAD1,
      [STAGING],
      'running',
      /A check or apply of staging\/network is running right now; its lock is not stale/,
    ],
  ])(
    'is refused %s: the block and the lock stay, audited as unlock_refused',
    async (_case, userId, running, reason, told) => {
      const w = await world();
      const runId = await blockedAndLocked(w);
      w.scheduler.running = running;
      await handleUnlock(w.deps, { kind: 'unlock', stack: STAGING }, userId, w.tell);
      expect(w.told).toEqual([expect.stringMatching(told)]);
      expect((await w.store.getStack(STAGING))?.blockedReason).toBe('apply interrupted');
      expect((await w.store.getLock(STAGING))?.runId).toBe(runId);
      expect(await w.store.listAudit({ stack: STAGING })).toMatchObject([
        { action: 'unlock_refused', actor: userId, detail: { reason } },
      ]);
    },
  );

  it('does nothing for a stack that is not configured (the parser only lets configured ones through)', async () => {
    const w = await world();
    await handleUnlock(w.deps, { kind: 'unlock', stack: 'no/such' }, LEAD1, w.tell);
    expect(w.told).toEqual([]);
    expect(await w.audit()).toEqual([]);
  });
});
