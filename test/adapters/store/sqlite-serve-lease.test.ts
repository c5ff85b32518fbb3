import { hostname } from 'node:os';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { LeaderLease } from '../../../src/ports/leader-lease.js';
import { processOwner } from '../../../src/adapters/store/shared/process-owner.js';
import {
  ServeLeaseHeldError,
  takeSqliteServeLease,
  type SqliteServeLeaseOptions,
} from '../../../src/adapters/store/sqlite/sqlite-serve-lease.js';
import { waitFor } from '../../helpers/process-wait.js';
import { useTempStore } from './temp-store.js';

/**
 * The one serve of a SQLite store, on a real file. What another host's process does cannot be seen from
 * here: its lease's expiry speaks for it. A process of this host that is gone is seen at once.
 */
describe('the serve lease of a SQLite store', () => {
  const tmp = useTempStore();
  const held: LeaderLease[] = [];
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const take = (options: Partial<SqliteServeLeaseOptions> = {}) => {
    const lease = takeSqliteServeLease({
      path: tmp.path,
      ttlMs: 30_000,
      now: () => clock,
      onLost: () => undefined,
      onError: (err) => {
        throw err;
      },
      ...options,
    });
    held.push(lease);
    return lease;
  };
  afterEach(async () => {
    for (const lease of held.splice(0)) await lease.stop();
  });

  it("refuses a second serve while another host's holder is within its lease, and lets it in once the lease ends", async () => {
    await tmp.open().close();
    const other = { host: 'another-pod', pid: 1, start: 'boot:1' };
    const first = take({ owner: other });
    expect(first.isLeader()).toBe(true);
    let refusal: unknown;
    try {
      take();
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(ServeLeaseHeldError);
    expect((refusal as Error).message).toMatch(
      /another driftgate serve runs on .*driftgate\.db: pid 1 on host another-pod, since 2026-01-01T00:00:00\.000Z.*ends at 2026-01-01T00:00:30\.000Z/,
    );
    clock += 30_000;
    expect(first.isLeader()).toBe(false);
    expect(take().isLeader()).toBe(true);
  });

  it('takes the lease of a process of this host that is gone at once, without waiting for its end', async () => {
    await tmp.open().close();
    // A pid this host does not run: a serve killed with -9.
    take({ owner: { host: hostname(), pid: 2 ** 22 + 17, start: 'boot:1' } });
    expect(take().isLeader()).toBe(true);
  });

  it('renews its lease while it runs, and tells when another took it after it could not', async () => {
    await tmp.open().close();
    let lost: string | undefined;
    const first = take({ renewMs: 20, onLost: (holder) => (lost = holder?.host) });
    const other = { host: 'another-pod', pid: 1, start: 'boot:1' };
    clock += 20_000;
    const raw = new Database(tmp.path, { readonly: true });
    const expiresAt = () => raw.prepare('SELECT expires_at FROM serve_lease').pluck().get();
    await waitFor('a renewal', () => (expiresAt() === clock + 30_000 ? true : undefined));
    raw.close();
    clock += 20_000;
    // Past the end of its first lease, renewed: still held.
    expect(first.isLeader()).toBe(true);
    expect(() => take({ owner: other })).toThrow(ServeLeaseHeldError);
    clock += 30_001;
    // Past its end unrenewed (a process stopped in a debugger, say): another host's serve takes it.
    expect(first.isLeader()).toBe(false);
    take({ owner: other });
    await waitFor('the first to see its lease lost', () => lost);
    expect(lost).toBe('another-pod');
    expect(first.isLeader()).toBe(false);
  });

  it('gives its lease up when it stops: the next serve starts at once', async () => {
    await tmp.open().close();
    const first = take({ owner: { ...processOwner(), pid: 1 } });
    await first.stop();
    held.splice(held.indexOf(first), 1);
    expect(take().isLeader()).toBe(true);
  });
});
