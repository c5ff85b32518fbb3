import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { applyMigrations, MIGRATIONS, StoreSchemaTooNewError } from '../../../src/adapters/store/sqlite/migrations.js';
import { openSqliteStore } from '../../../src/adapters/store/sqlite/open-sqlite-store.js';
import { matchedChange } from '../../domain/change-events/fixtures.js';
import { useTempStore } from './temp-store.js';

describe('sqlite store migrations', () => {
  const tmp = useTempStore();

  it('creates the schema from an empty file, in WAL mode, private to the owner', async () => {
    await tmp.open().close();
    const db = new Database(tmp.path, { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
      expect(tables).toEqual(expect.arrayContaining(['artifacts', 'audit', 'locks', 'runs', 'stacks']));
      const triggers = db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").pluck().all();
      expect(triggers).toEqual(['audit_no_delete', 'audit_no_update']);
    } finally {
      db.close();
    }
    expect(statSync(tmp.path).mode & 0o777).toBe(0o600);
  });

  it('re-opens an existing database without re-running steps and keeps its data', async () => {
    const first = tmp.open();
    const run = await first.createRun({ stack: 'net', trigger: 'manual' });
    await first.close();
    const second = tmp.open();
    expect(await second.getRun(run.id)).toEqual(run);
    await second.close();
    const db = new Database(tmp.path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    db.close();
  });

  it('keeps the changes waiting in a store from before they were kept in order', async () => {
    mkdirSync(dirname(tmp.path), { recursive: true });
    const db = new Database(tmp.path);
    applyMigrations(db, tmp.path, MIGRATIONS.slice(0, -1));
    const change = matchedChange('0000e001-0000', { stack: 'prod/net', address: 'aws_s3_object.config' });
    db.prepare(
      "INSERT INTO pending_changes (stack, event_id, at, received_at, change) VALUES ('prod/net', ?, 0, 0, ?)",
    ).run(change.eventId, JSON.stringify(change));
    db.close();
    const store = tmp.open();
    const mark = await store.markPendingChanges('prod/net');
    expect(mark).toBeGreaterThan(0);
    expect((await store.readPendingChanges('prod/net', mark)).changes.map((c) => c.eventId)).toEqual([change.eventId]);
    await store.close();
  });

  it('refuses a database written by a newer schema, naming the file and both versions', async () => {
    await tmp.open().close();
    const db = new Database(tmp.path);
    db.pragma(`user_version = ${MIGRATIONS.length + 3}`);
    db.close();
    let caught: unknown;
    try {
      openSqliteStore({ path: tmp.path });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(StoreSchemaTooNewError);
    const err = caught as StoreSchemaTooNewError;
    expect(err.found).toBe(MIGRATIONS.length + 3);
    expect(err.supported).toBe(MIGRATIONS.length);
    expect(err.message).toContain(tmp.path);
    expect(err.message).toContain('upgrade driftgate');
  });

  it('rolls back a failing step entirely', async () => {
    await tmp.open().close();
    const db = new Database(tmp.path);
    const broken = [...MIGRATIONS, 'CREATE TABLE extra (x INTEGER);', 'CREATE TABLE nope (;'];
    expect(() => applyMigrations(db, tmp.path, broken)).toThrow();
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'extra'").pluck().get()).toBe(0);
    db.close();
  });

  it('names the table, row and column of a corrupted row instead of returning bad data', async () => {
    const store = tmp.open();
    const run = await store.createRun({ stack: 'net', trigger: 'manual' });
    const raw = new Database(tmp.path);
    raw.prepare('UPDATE runs SET counts = \'{"create": -1}\' WHERE id = ?').run(run.id);
    raw.close();
    await expect(store.getRun(run.id)).rejects.toThrow(new RegExp(`unreadable runs row ${run.id}: counts`));
  });
});
