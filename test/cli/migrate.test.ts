import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/adapters/store/sqlite/open-sqlite-store.js';
import { openPostgresStore } from '../../src/adapters/store/postgres/open-postgres-store.js';
import type { Store } from '../../src/ports/store.js';
import { matchedChange } from '../domain/change-events/fixtures.js';
import { runCli } from '../helpers/cli.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import { usePostgres } from '../helpers/postgres.js';
import { roleDatabase, sqlAs } from '../helpers/postgres-roles.js';

/** `driftgate migrate --to postgres`: what a SQLite store holds, the Postgres store holds after, read the same. */
const postgres = usePostgres();
let dir: string;
let config: string;
const at = (minute: number) => new Date(Date.UTC(2026, 11, 1, 10, minute));
const waiting = (eventId: string) =>
  matchedChange(eventId, { stack: 'prod/site', address: 'aws_s3_object.config', at: at(45).toISOString() });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'driftgate-migrate-'));
  config = join(dir, 'driftgate.yml');
  await writeFile(
    config,
    configYaml({
      dataDir: join(dir, 'data'),
      log: { level: 'silent' },
      store: { type: 'postgres', url: '${DATABASE_URL}' },
      stacks: [stackEntry('prod/site', dir), stackEntry('prod/db', dir, { workspace: 'db' })],
    }),
  );
  let minute = 0;
  const sqlite = await openSqliteStore({ path: join(dir, 'data', 'driftgate.db'), now: () => at(minute++) });
  try {
    await sqlite.upsertStack('prod/site');
    await sqlite.upsertStack('prod/db');
    const run = await sqlite.createRun({ stack: 'prod/site', trigger: 'schedule', commitSha: 'a'.repeat(40) });
    await sqlite.transition(run.id, 'planning', 'drifted', {
      kind: 'drift',
      fingerprint: 'fp1',
      counts: { create: 0, update: 1, delete: 0, replace: 0, read: 0 },
      planSha256: 'b'.repeat(64),
    });
    await sqlite.openDrift('prod/site', {
      fingerprint: 'fp1',
      runId: run.id,
      counts: { create: 0, update: 1, delete: 0, replace: 0, read: 0 },
    });
    await sqlite.addArtifact({
      runId: run.id,
      kind: 'plan',
      key: `runs/${run.id}/tfplan`,
      sha256: 'b'.repeat(64),
      size: 42,
    });
    await sqlite.appendAudit({
      at: at(30),
      actor: 'driftgate',
      action: 'drift_detected',
      runId: run.id,
      stack: 'prod/site',
      detail: { counts: 1 },
    });
    await sqlite.appendAudit({ at: at(31), actor: 'U123', action: 'approve', runId: run.id, stack: 'prod/site' });
    await sqlite.addApproval({ runId: run.id, userId: 'U123', at: at(31), groups: ['sre'] });
    await sqlite.setMessage({ runId: run.id, channel: 'C123', ts: '1700000000.000100' });
    const sent = await sqlite.enqueue({ key: run.id, method: 'chat.postMessage', payload: { text: 'drift' } });
    await sqlite.markDelivered(sent.id);
    await sqlite.enqueue({ key: run.id, method: 'chat.update', payload: { text: 'approved' } });
    await sqlite.silence({ stack: 'prod/db', until: at(50), reason: 'migration', by: 'U9' });
    await sqlite.snooze('prod/site', 'fp0', at(55));
    await sqlite.saveRemediation({
      stack: 'prod/site',
      fingerprint: 'fp1',
      runId: run.id,
      repository: 'acme/infra',
      branch: 'driftgate/prod-site',
      prNumber: 7,
      prUrl: 'https://github.com/acme/infra/pull/7',
      requestedBy: 'U123',
      createdAt: at(40),
      codified: 2,
      leftForPerson: 1,
    });
    await sqlite.addPendingChanges('prod/site', [waiting('0000e001-0000')]);
  } finally {
    await sqlite.close();
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Everything the port can read back, for one store. */
async function contents(store: Store) {
  const runs = await store.listRuns({});
  const runId = runs[0]!.id;
  return {
    stacks: await store.listStacks(),
    runs,
    artifacts: await store.listArtifacts(runId),
    audit: await store.listAudit({}),
    approvals: await store.listApprovals(runId),
    message: await store.getMessage(runId),
    due: await store.due(at(59), 10),
    pending: await store.pendingCount(),
    silence: await store.getSilence('prod/db', at(45)),
    snoozed: await store.isSnoozed('prod/site', 'fp0', at(45)),
    remediation: await store.getRemediation('prod/site', 'fp1'),
    waiting: await store.readPendingChanges('prod/site'),
    waitingMark: await store.markPendingChanges('prod/site'),
  };
}

describe('driftgate migrate --to postgres', () => {
  it('copies every row, and the Postgres store reads back what the SQLite one held', async () => {
    const url = await postgres.createDatabase();
    const env = { PATH: process.env.PATH, DATABASE_URL: url };
    const result = await runCli(['migrate', '--to', 'postgres', '--config', config], { cwd: dir, env });
    // One (super)user for everything: the copy works, and says that the audit is not guarded from it.
    expect(result.stderr).toMatch(
      /^warning: the audit trail is not protected from the processes that write it: "postgres" is a superuser/,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('copied 14 rows from');
    expect(result.stdout).toMatch(/outbox\s+2/);

    const sqlite = await openSqliteStore({ path: join(dir, 'data', 'driftgate.db') });
    const pg = await openPostgresStore({ url });
    try {
      const before = await contents(sqlite);
      expect(before.audit).toHaveLength(2);
      expect(await contents(pg)).toEqual(before);
      // Ids go on from where SQLite left them: the next audit entry and outbox item do not collide.
      const next = await pg.appendAudit({ at: at(58), actor: 'driftgate', action: 'check' });
      expect(next.id).toBe(3);
      // So does the order of waiting changes: one kept after the copy is after a check's mark.
      await pg.addPendingChanges('prod/site', [waiting('0000e002-0000')]);
      expect(await pg.markPendingChanges('prod/site')).toBeGreaterThan(before.waitingMark);
    } finally {
      await sqlite.close();
      await pg.close();
    }

    const again = await runCli(['migrate', '--to', 'postgres', '--config', config], { cwd: dir, env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      'the Postgres store (store.url) already has rows in stacks: migrate copies into an empty store only',
    );
  });

  it('says what is missing: a known target, or a Postgres store in the config', async () => {
    const env = { PATH: process.env.PATH, DATABASE_URL: await postgres.createDatabase() };
    const badTarget = await runCli(['migrate', '--to', 'mysql', '--config', config], { cwd: dir, env });
    expect(badTarget.code).toBe(1);
    expect(badTarget.stderr).toContain('say where to: --to postgres');
    const sqliteConfig = join(dir, 'sqlite.yml');
    await writeFile(sqliteConfig, configYaml({ dataDir: join(dir, 'data'), stacks: [stackEntry('prod/site', dir)] }));
    for (const args of [['migrate'], ['migrate', '--to', 'postgres']]) {
      const noPostgres = await runCli([...args, '--config', sqliteConfig], { cwd: dir, env });
      expect(noPostgres.code).toBe(1);
      expect(noPostgres.stderr).toContain('the config names no Postgres store');
    }
  });
});

describe('driftgate migrate with an owner role', () => {
  it('makes the schema as the role in DATABASE_OWNER_URL; the processes then need no owner, and cannot rewrite the audit', async () => {
    const db = await roleDatabase(await postgres.createDatabase());
    const runtimeOnly = { PATH: process.env.PATH, DATABASE_URL: db.runtimeUrl };
    const before = await runCli(['migrate', '--config', config], { cwd: dir, env: runtimeOnly });
    expect(before.code).toBe(1);
    expect(before.stderr).toContain(
      `which store.url's role "${db.runtime}" may not make: run driftgate migrate with the owner role's URL in DATABASE_OWNER_URL`,
    );
    expect(before.stderr).not.toContain(new URL(db.runtimeUrl).password);

    const env = { ...runtimeOnly, DATABASE_OWNER_URL: db.ownerUrl };
    const result = await runCli(['migrate', '--config', config], { cwd: dir, env });
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(result.stdout).toContain(
      "the owner role's (DATABASE_OWNER_URL); store.url's role may only read and add to its audit",
    );
    const again = await runCli(['migrate', '--config', config], { cwd: dir, env: runtimeOnly });
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(again.stdout).toContain('(DATABASE_OWNER_URL is not set');

    const store = await openPostgresStore({ url: db.runtimeUrl });
    try {
      await store.appendAudit({ at: at(1), actor: 'U1', action: 'approve' });
      await expect(sqlAs(db.runtimeUrl, 'DELETE FROM audit')).rejects.toMatchObject({ code: '42501' });
      expect(await store.listAudit({})).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});
