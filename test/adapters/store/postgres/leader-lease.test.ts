import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import type { LeaderLease } from '../../../../src/ports/leader-lease.js';
import { startLeaderLease } from '../../../../src/adapters/store/postgres/leader-lease.js';
import { usePostgres } from '../../../helpers/postgres.js';

const postgres = usePostgres();
const leases: LeaderLease[] = [];
afterEach(async () => {
  for (const lease of leases.splice(0)) await lease.stop();
});

function lease(url: string, key = 7) {
  const changes: boolean[] = [];
  let notify: (() => void) | undefined;
  const handle = startLeaderLease({
    url,
    key,
    checkMs: 200,
    onChange: (leader) => {
      changes.push(leader);
      notify?.();
    },
    onError: () => undefined,
  });
  leases.push(handle);
  return {
    handle,
    changes,
    async until(leader: boolean) {
      while (handle.isLeader() !== leader) await new Promise<void>((resolve) => (notify = resolve));
    },
  };
}

describe('the leader lease', () => {
  it('has one leader at a time, and the next one takes over when it steps down', async () => {
    const url = await postgres.createDatabase();
    const a = lease(url);
    await a.until(true);
    const b = lease(url);
    // b asks several times while a leads.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(b.handle.isLeader()).toBe(false);
    await a.handle.stop();
    await b.until(true);
    expect(a.changes).toEqual([true, false]);
    expect(b.changes).toEqual([true]);
  });

  it('passes to a waiting replica when the leading process is killed (kill -9)', async () => {
    const url = await postgres.createDatabase();
    // The leading process: a psql session that took the lock and sits idle, as a leader does between its
    // checks, killed with SIGKILL (no goodbye to the server).
    const holder = execa('psql', [url, '-v', 'ON_ERROR_STOP=1', '-tA'], { reject: false });
    holder.stdin?.write('SELECT pg_advisory_lock(7);\n');
    await new Promise<void>((resolve) => holder.stdout?.once('data', () => resolve()));
    const follower = lease(url);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(follower.handle.isLeader()).toBe(false);
    holder.kill('SIGKILL');
    await holder;
    await follower.until(true);
    expect(follower.changes).toEqual([true]);
  });
});
