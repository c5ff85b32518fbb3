import { describe, expect, it } from 'vitest';
import { manualClock } from '../temp-store.js';
import type { StoreContractTarget } from './target.js';

/** Artifact references, the audit trail and remediation PRs. */
export function recordsContract(target: StoreContractTarget): void {
  describe('artifacts, audit and remediations', () => {
    it('records artifacts per run and kind, and lists those of finished runs written before a date', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      const old = await store.createRun({ stack: 'net', trigger: 'schedule' });
      const live = await store.createRun({ stack: 'net', trigger: 'schedule' });
      const ref = {
        runId: old.id,
        kind: 'plan' as const,
        key: `runs/${old.id}/plan`,
        sha256: 'a'.repeat(64),
        size: 10,
      };
      expect(await store.addArtifact(ref)).toEqual({ ...ref, createdAt: clock.now() });
      await store.addArtifact({ ...ref, sha256: 'b'.repeat(64), size: 11 });
      await store.addArtifact({ ...ref, kind: 'plan_json', key: `runs/${old.id}/plan.json` });
      await store.addArtifact({ ...ref, runId: live.id, key: `runs/${live.id}/plan` });
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
      await expect(store.addArtifact({ ...ref, runId: 'r_unknown' })).rejects.toThrow();
    });

    it('appends audit entries with JSON detail, filters them, and limits to the latest', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      const first = await store.appendAudit({
        at: clock.now(),
        actor: 'U123',
        action: 'approve',
        runId: 'r_1',
        stack: 'net',
        detail: { note: 'ok', n: [1, 2] },
      });
      expect(first).toEqual({
        id: expect.any(Number),
        at: clock.now(),
        actor: 'U123',
        action: 'approve',
        runId: 'r_1',
        stack: 'net',
        detail: { note: 'ok', n: [1, 2] },
      });
      await store.appendAudit({ at: clock.now(), actor: 'system', action: 'apply', runId: 'r_1', planSha256: 'c' });
      await store.appendAudit({ at: clock.now(), actor: 'system', action: 'plan', runId: 'r_2', stack: 'app' });
      expect((await store.listAudit()).map((e) => e.action)).toEqual(['approve', 'apply', 'plan']);
      expect((await store.listAudit({ runId: 'r_1' })).map((e) => e.action)).toEqual(['approve', 'apply']);
      expect((await store.listAudit({ stack: 'app' })).map((e) => e.action)).toEqual(['plan']);
      expect((await store.listAudit({ limit: 2 })).map((e) => e.action)).toEqual(['apply', 'plan']);
    });

    it('has the database refuse UPDATE and DELETE of audit entries, whoever asks', async () => {
      const store = await target.open();
      await store.appendAudit({ at: new Date(), actor: 'U1', action: 'approve' });
      await expect(target.execRaw("UPDATE audit SET actor = 'someone-else'")).rejects.toThrow(/append-only/);
      await expect(target.execRaw('DELETE FROM audit')).rejects.toThrow(/append-only/);
      expect((await store.listAudit()).map((e) => e.actor)).toEqual(['U1']);
    });

    it('keeps one remediation PR per stack and drift, a later one replacing it', async () => {
      const store = await target.open();
      const record = {
        stack: 'net',
        fingerprint: 'fp1',
        runId: 'r_1',
        repository: 'acme/infra',
        branch: 'driftgate/net-fp1',
        prNumber: 7,
        prUrl: 'https://github.example/acme/infra/pull/7',
        requestedBy: 'U1',
        createdAt: new Date('2025-01-01T00:00:00Z'),
        codified: 3,
        leftForPerson: 1,
      };
      expect(await store.getRemediation('net', 'fp1')).toBeUndefined();
      await store.saveRemediation(record);
      expect(await store.getRemediation('net', 'fp1')).toEqual(record);
      await store.saveRemediation({ ...record, prNumber: 8, runId: 'r_2' });
      expect(await store.getRemediation('net', 'fp1')).toMatchObject({ prNumber: 8, runId: 'r_2' });
      expect(await store.getRemediation('net', 'fp2')).toBeUndefined();
    });
  });
}
