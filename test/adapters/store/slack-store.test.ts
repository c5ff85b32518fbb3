import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../../src/adapters/store/sqlite/open-sqlite-store.js';
import { manualClock } from './temp-store.js';

describe('sqlite slack store', () => {
  let dir: string;
  let path: string;
  const opened: SqliteStore[] = [];
  const clock = manualClock();
  const open = () => {
    const store = openSqliteStore({ path, now: clock.now });
    opened.push(store);
    return store;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'driftgate-slack-store-'));
    path = join(dir, 'driftgate.db');
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // The contract sees the outbox through the port; these read the file, where a dead item stays for the record.
  it('keeps a dead item in the file with its error, and prunes only deliveries older than the retention', async () => {
    const store = open();
    const old = await store.enqueue({ key: 'k', method: 'chat.postMessage', payload: { text: 'old' } });
    await store.markDelivered(old.id);
    const dead = await store.enqueue({ key: 'd', method: 'chat.postMessage', payload: {} });
    await store.markDead(dead.id, 'invalid_blocks');
    const diedAt = clock.now().getTime();
    clock.advance(8 * 86_400_000);
    const recent = await store.enqueue({ key: 'k', method: 'chat.update', payload: { text: 'recent' } });
    await store.markDelivered(recent.id);
    const pending = await store.enqueue({ key: 'k', method: 'chat.update', payload: { text: 'open' } });

    expect(await store.pruneDelivered(new Date(clock.now().getTime() - 7 * 86_400_000))).toBe(1);
    const db = new Database(path, { readonly: true });
    try {
      expect(db.prepare('SELECT id FROM outbox ORDER BY id').pluck().all()).toEqual([dead.id, recent.id, pending.id]);
      expect(db.prepare('SELECT attempts, last_error, dead_at FROM outbox WHERE id = ?').get(dead.id)).toEqual({
        attempts: 1,
        last_error: 'invalid_blocks',
        dead_at: diedAt,
      });
    } finally {
      db.close();
    }
  });

  it('keeps the outbox across a reopen of the file', async () => {
    const first = open();
    const item = await first.enqueue({
      key: 'k',
      method: 'chat.update',
      payload: { channel: { $message: 'r1' }, text: 'x' },
    });
    await first.close();
    opened.splice(opened.indexOf(first), 1);
    const second = open();
    expect(await second.due(clock.now(), 10)).toEqual([item]);
  });
});
