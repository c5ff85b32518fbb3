import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../../src/adapters/store/open-sqlite-store.js';
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

  it('counts each user once per run, across connections', async () => {
    const a = open();
    const b = open();
    const at = clock.now();
    expect(await a.addApproval({ runId: 'r1', userId: 'U1', at })).toBe(true);
    expect(await b.addApproval({ runId: 'r1', userId: 'U1', at })).toBe(false);
    expect(await b.addApproval({ runId: 'r1', userId: 'U2', at: new Date(at.getTime() + 1) })).toBe(true);
    expect(await a.addApproval({ runId: 'r2', userId: 'U1', at })).toBe(true);
    expect(await a.listApprovals('r1')).toEqual([
      { runId: 'r1', userId: 'U1', at },
      { runId: 'r1', userId: 'U2', at: new Date(at.getTime() + 1) },
    ]);
    expect(await a.listApprovals('nope')).toEqual([]);
  });

  it('keeps one message ref per run, replaced on re-post', async () => {
    const store = open();
    expect(await store.getMessage('r1')).toBeUndefined();
    await store.setMessage({ runId: 'r1', channel: 'C1', ts: '1.1' });
    await store.setMessage({ runId: 'r1', channel: 'C2', ts: '2.2' });
    expect(await store.getMessage('r1')).toEqual({ runId: 'r1', channel: 'C2', ts: '2.2' });
  });

  it('hands out only the oldest open item of each key, even while it waits for a retry', async () => {
    const store = open();
    const a1 = await store.enqueue({
      key: 'run-a',
      method: 'chat.postMessage',
      payload: { text: 'a1' },
      recordMessageFor: 'run-a',
    });
    const a2 = await store.enqueue({ key: 'run-a', method: 'chat.update', payload: { text: 'a2' } });
    const b1 = await store.enqueue({ key: 'run-b', method: 'chat.postMessage', payload: { text: 'b1' } });
    expect(a1).toMatchObject({ key: 'run-a', attempts: 0, recordMessageFor: 'run-a', payload: { text: 'a1' } });
    expect(await store.pendingCount()).toBe(3);
    expect((await store.due(clock.now(), 10)).map((i) => i.id)).toEqual([a1.id, b1.id]);
    expect((await store.due(clock.now(), 1)).map((i) => i.id)).toEqual([a1.id]);

    // a1 fails and waits a minute: a2 must not overtake it.
    await store.markFailed(a1.id, 'HTTP 503', new Date(clock.now().getTime() + 60_000));
    expect((await store.due(clock.now(), 10)).map((i) => i.id)).toEqual([b1.id]);
    clock.advance(60_000);
    const retry = (await store.due(clock.now(), 10)).find((i) => i.key === 'run-a');
    expect(retry).toMatchObject({ id: a1.id, attempts: 1, lastError: 'HTTP 503' });

    await store.markDelivered(a1.id);
    await store.markDelivered(b1.id);
    expect((await store.due(clock.now(), 10)).map((i) => i.id)).toEqual([a2.id]);
    expect(await store.pendingCount()).toBe(1);
  });

  it('a dead item is never handed out again and stops holding back its key', async () => {
    const store = open();
    const first = await store.enqueue({ key: 'k', method: 'chat.postMessage', payload: {} });
    const second = await store.enqueue({ key: 'k', method: 'chat.postMessage', payload: {} });
    await store.markDead(first.id, 'invalid_blocks');
    expect((await store.due(clock.now(), 10)).map((i) => i.id)).toEqual([second.id]);
    expect(await store.pendingCount()).toBe(1);
    const db = new Database(path, { readonly: true });
    const row = db.prepare('SELECT attempts, last_error, dead_at FROM outbox WHERE id = ?').get(first.id);
    db.close();
    expect(row).toEqual({ attempts: 1, last_error: 'invalid_blocks', dead_at: clock.now().getTime() });
  });

  it('prunes delivered items older than the retention, and only those', async () => {
    const store = open();
    const old = await store.enqueue({ key: 'k', method: 'chat.postMessage', payload: { text: 'old' } });
    await store.markDelivered(old.id);
    const dead = await store.enqueue({ key: 'd', method: 'chat.postMessage', payload: {} });
    await store.markDead(dead.id, 'invalid_blocks');
    clock.advance(8 * 86_400_000);
    const recent = await store.enqueue({ key: 'k', method: 'chat.update', payload: { text: 'recent' } });
    await store.markDelivered(recent.id);
    const open_ = await store.enqueue({ key: 'k', method: 'chat.update', payload: { text: 'open' } });

    expect(await store.pruneDelivered(new Date(clock.now().getTime() - 7 * 86_400_000))).toBe(1);
    const db = new Database(path, { readonly: true });
    const ids = db.prepare('SELECT id FROM outbox ORDER BY id').pluck().all();
    db.close();
    expect(ids).toEqual([dead.id, recent.id, open_.id]);
    expect((await store.due(clock.now(), 10)).map((i) => i.id)).toEqual([open_.id]);
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

  it('silences a stack until a time, and unsilences early', async () => {
    const store = open();
    const until = new Date(clock.now().getTime() + 3_600_000);
    await store.silence({ stack: 'net', until, reason: 'maintenance', by: 'U1' });
    expect(await store.getSilence('net', clock.now())).toEqual({
      stack: 'net',
      until,
      reason: 'maintenance',
      by: 'U1',
    });
    expect(await store.getSilence('net', until)).toBeUndefined();
    expect(await store.getSilence('other', clock.now())).toBeUndefined();
    await store.silence({ stack: 'net', until, by: 'U2' });
    expect(await store.unsilence('net')).toEqual({ stack: 'net', until, by: 'U2' });
    expect(await store.unsilence('net')).toBeUndefined();
    expect(await store.getSilence('net', clock.now())).toBeUndefined();
  });

  it('snoozes one fingerprint of a stack until a time', async () => {
    const store = open();
    const until = new Date(clock.now().getTime() + 1000);
    await store.snooze('net', 'fp1', until);
    expect(await store.isSnoozed('net', 'fp1', clock.now())).toBe(true);
    expect(await store.isSnoozed('net', 'fp2', clock.now())).toBe(false);
    expect(await store.isSnoozed('app', 'fp1', clock.now())).toBe(false);
    expect(await store.isSnoozed('net', 'fp1', until)).toBe(false);
    await store.snooze('net', 'fp1', new Date(until.getTime() + 1000));
    expect(await store.isSnoozed('net', 'fp1', until)).toBe(true);
  });

  it('shares the connection with the run store', async () => {
    const store = open();
    const run = await store.createRun({ stack: 'net', trigger: 'manual' });
    await store.addApproval({ runId: run.id, userId: 'U1', at: clock.now() });
    expect(await store.listApprovals(run.id)).toHaveLength(1);
  });
});
