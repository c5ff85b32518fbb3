import { afterEach, describe, expect, it } from 'vitest';
import { processOwner } from '../../../../src/adapters/store/shared/process-owner.js';
import { openPostgresStore } from '../../../../src/adapters/store/postgres/open-postgres-store.js';
import type { ProcessOwner } from '../../../../src/domain/run/model.js';
import type { Store } from '../../../../src/ports/store.js';
import { kill9, useLiveProcesses } from '../../../helpers/live-process.js';
import { usePostgres } from '../../../helpers/postgres.js';
import { manualClock } from '../temp-store.js';

const server = usePostgres();
const processes = useLiveProcesses();
const opened: Store[] = [];

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

/** A replica on another machine: nothing on this host can tell whether it still runs. */
const elsewhere: ProcessOwner = { host: 'replica-elsewhere', pid: 4242, start: 'boot:1' };

describe('postgres locks and runs of processes on this host and on others', () => {
  /** Each test's own database, created on its first open. */
  let url: string | undefined;
  const open = async (options: { now?: () => Date; owner?: ProcessOwner } = {}) => {
    url ??= await server.createDatabase();
    const store = await openPostgresStore({ url, poolSize: 2, ...options });
    opened.push(store);
    return store;
  };
  afterEach(() => {
    url = undefined;
  });

  it('keeps an expired lock of a live process on this host, and frees it once the process is killed', async () => {
    const clock = manualClock();
    const child = processes.start();
    const held = await open({ now: clock.now, owner: processOwner(child.pid) });
    expect(await held.acquireLock('net', 'r_a', 10_000)).toMatchObject({ lock: { owner: processOwner(child.pid) } });
    const other = await open({ now: clock.now });
    clock.advance(10_001);
    expect(await other.acquireLock('net', 'r_b', 10_000)).toMatchObject({ acquired: false, holder: { runId: 'r_a' } });
    await kill9(child);
    expect(await other.acquireLock('net', 'r_b', 10_000)).toMatchObject({ acquired: true, lock: { runId: 'r_b' } });
  });

  it('goes by the TTL alone for a lock of another host: held until it expires, then taken over', async () => {
    const clock = manualClock();
    const remote = await open({ now: clock.now, owner: elsewhere });
    await remote.acquireLock('net', 'r_a', 10_000);
    const local = await open({ now: clock.now });
    clock.advance(9_999);
    expect((await local.acquireLock('net', 'r_b', 10_000)).acquired).toBe(false);
    expect((await local.getLock('net'))?.owner).toEqual(elsewhere);
    clock.advance(1);
    expect(await local.getLock('net')).toBeUndefined();
    expect(await local.acquireLock('net', 'r_b', 10_000)).toMatchObject({ acquired: true, lock: { runId: 'r_b' } });
  });

  it('interrupts a run of another host only once its lock has run out', async () => {
    const clock = manualClock();
    const remote = await open({ now: clock.now, owner: elsewhere });
    const run = await remote.createRun({ stack: 'net', trigger: 'schedule' });
    await remote.acquireLock('net', run.id, 10_000);
    const local = await open({ now: clock.now });
    expect(await local.recoverInterrupted()).toEqual([]);
    await remote.renewLock('net', run.id, 10_000);
    clock.advance(9_999);
    expect(await local.recoverInterrupted()).toEqual([]);
    clock.advance(1);
    expect((await local.recoverInterrupted()).map((r) => [r.id, r.state])).toEqual([[run.id, 'interrupted']]);
  });

  it('leaves announcements of a live process alone: on this host while it runs, elsewhere while it holds its lock', async () => {
    const clock = manualClock();
    const child = processes.start();
    const announceFrom = async (owner: ProcessOwner, stack: string) => {
      const store = await open({ now: clock.now, owner });
      const run = await store.createRun({ stack, trigger: 'schedule' });
      await store.acquireLock(stack, run.id, 10_000);
      await store.announce(run.id, { type: 'no_changes' });
      return run.id;
    };
    const local = await announceFrom(processOwner(child.pid), 'a');
    const remote = await announceFrom(elsewhere, 'b');
    const serve = await open({ now: clock.now });
    expect(await serve.listUnannounced()).toEqual([]);
    await kill9(child);
    expect((await serve.listUnannounced()).map((u) => u.run.id)).toEqual([local]);
    clock.advance(10_000);
    expect((await serve.listUnannounced()).map((u) => u.run.id)).toEqual([local, remote]);
  });
});
