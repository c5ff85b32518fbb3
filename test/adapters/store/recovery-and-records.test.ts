import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { manualClock, useTempStore } from './temp-store.js';

describe('recoverInterrupted', () => {
  const tmp = useTempStore();

  it('marks in-flight runs interrupted, blocks the stack of an interrupted apply and frees their locks', async () => {
    const clock = manualClock();
    const before = tmp.open({ now: clock.now });
    const planning = await before.createRun({ stack: 'plan-stack', trigger: 'schedule' });
    await before.acquireLock('plan-stack', planning.id, 60_000);
    const applying = await before.createRun({ stack: 'apply-stack', trigger: 'manual' });
    await before.transition(applying.id, 'planning', 'pending_approval');
    await before.transition(applying.id, 'pending_approval', 'applying');
    await before.acquireLock('apply-stack', applying.id, 60_000);
    const waiting = await before.createRun({ stack: 'waiting-stack', trigger: 'schedule' });
    await before.transition(waiting.id, 'planning', 'drifted');
    await before.close(); // the crash

    clock.advance(5_000);
    const after = tmp.open({ now: clock.now });
    const changed = await after.recoverInterrupted();
    expect(changed.map((r) => r.id).sort()).toEqual([planning.id, applying.id].sort());
    const plan = (await after.getRun(planning.id))!;
    const apply = (await after.getRun(applying.id))!;
    expect(plan).toMatchObject({ state: 'interrupted', finishedAt: clock.now() });
    expect(plan.error).toMatch(/stopped during the plan step/);
    expect(apply.error).toMatch(/stopped during the apply step/);
    expect((await after.getRun(waiting.id))?.state).toBe('drifted');

    const blocked = (await after.getStack('apply-stack'))!;
    expect(blocked.status).toBe('blocked');
    expect(blocked.blockedReason).toMatch(/interrupted/);
    expect(blocked.blockedReason).toMatch(/half applied/);
    expect((await after.getStack('plan-stack'))?.blockedReason).toBeUndefined();
    expect(await after.getLock('plan-stack')).toBeUndefined();
    expect(await after.getLock('apply-stack')).toBeUndefined();
    expect(await after.recoverInterrupted()).toEqual([]);
  });
});

describe('artifact references and audit', () => {
  const tmp = useTempStore();

  it('records artifacts per run and kind, and lists those of runs finished before a date', async () => {
    const clock = manualClock();
    const store = tmp.open({ now: clock.now });
    const old = await store.createRun({ stack: 'net', trigger: 'schedule' });
    const live = await store.createRun({ stack: 'net', trigger: 'schedule' });
    const ref = {
      runId: old.id,
      kind: 'plan' as const,
      key: `runs/${old.id}/plan.tfplan`,
      sha256: 'a'.repeat(64),
      size: 10,
    };
    expect(await store.addArtifact(ref)).toEqual({ ...ref, createdAt: clock.now() });
    await store.addArtifact({ ...ref, sha256: 'b'.repeat(64), size: 11 });
    await store.addArtifact({ ...ref, kind: 'plan_json', key: `runs/${old.id}/plan.json` });
    await store.addArtifact({ ...ref, runId: live.id, key: `runs/${live.id}/plan.tfplan` });
    expect((await store.listArtifacts(old.id)).map((a) => [a.kind, a.sha256[0], a.size])).toEqual([
      ['plan', 'b', 11],
      ['plan_json', 'a', 10],
    ]);
    await store.transition(old.id, 'planning', 'no_changes');
    clock.advance(1000);
    expect((await store.listArtifactsBefore(clock.now())).map((a) => [a.runId, a.kind])).toEqual([
      [old.id, 'plan'],
      [old.id, 'plan_json'],
    ]);
    await store.removeArtifact(old.id, 'plan');
    expect((await store.listArtifacts(old.id)).map((a) => a.kind)).toEqual(['plan_json']);
    await expect(store.addArtifact({ ...ref, runId: 'r_unknown' })).rejects.toThrow(/FOREIGN KEY/);
  });

  it('appends audit entries with JSON detail and filters them', async () => {
    const clock = manualClock();
    const store = tmp.open({ now: clock.now });
    const first = await store.appendAudit({
      at: clock.now(),
      actor: 'U123',
      action: 'approve',
      runId: 'r_1',
      stack: 'net',
      detail: { note: 'ok', n: [1, 2] },
    });
    expect(first).toEqual({
      id: 1,
      at: clock.now(),
      actor: 'U123',
      action: 'approve',
      runId: 'r_1',
      stack: 'net',
      detail: { note: 'ok', n: [1, 2] },
    });
    await store.appendAudit({
      at: clock.now(),
      actor: 'system',
      action: 'apply',
      runId: 'r_1',
      stack: 'net',
      planSha256: 'c'.repeat(64),
    });
    await store.appendAudit({ at: clock.now(), actor: 'system', action: 'plan', runId: 'r_2', stack: 'app' });
    expect((await store.listAudit()).map((e) => e.action)).toEqual(['approve', 'apply', 'plan']);
    expect((await store.listAudit({ runId: 'r_1' })).map((e) => e.action)).toEqual(['approve', 'apply']);
    expect((await store.listAudit({ stack: 'app' })).map((e) => e.action)).toEqual(['plan']);
    expect((await store.listAudit({ limit: 2 })).map((e) => e.action)).toEqual(['apply', 'plan']);
  });

  it('rejects UPDATE and DELETE on the audit table, even through a raw connection', async () => {
    const store = tmp.open();
    await store.appendAudit({ at: new Date(), actor: 'U1', action: 'approve' });
    const raw = new Database(tmp.path);
    try {
      expect(() => raw.prepare("UPDATE audit SET actor = 'someone-else'").run()).toThrow(/append-only/);
      expect(() => raw.prepare('DELETE FROM audit').run()).toThrow(/append-only/);
    } finally {
      raw.close();
    }
    expect(await store.listAudit()).toHaveLength(1);
    expect((await store.listAudit())[0]?.actor).toBe('U1');
  });
});
