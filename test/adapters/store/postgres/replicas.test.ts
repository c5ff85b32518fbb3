import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../../../src/adapters/store/postgres/open-postgres-store.js';
import type { ProcessOwner } from '../../../../src/domain/run/model.js';
import type { Store } from '../../../../src/ports/store.js';
import { usePostgres } from '../../../helpers/postgres.js';
import { countInTransaction } from '../contract/transactions-contract.js';
import { manualClock } from '../temp-store.js';

const server = usePostgres();
const opened: Store[] = [];

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

/** Stores as replicas on several hosts have them: one pool each on one database. */
async function replicas(count: number, options: { now?: () => Date } = {}): Promise<Store[]> {
  const url = await server.createDatabase();
  const stores = [];
  for (let i = 0; i < count; i++) {
    const owner: ProcessOwner = { host: `replica-${i}`, pid: 100 + i, start: 'boot:1' };
    stores.push(await openPostgresStore({ url, poolSize: 3, owner, ...options }));
  }
  opened.push(...stores);
  return stores;
}

describe('postgres store shared by replicas', () => {
  it('runs the transactions of several replicas one after the other', async () => {
    const stores = await replicas(3);
    const callers = [...stores, ...stores].map((store, i) => ({ store, actor: `caller-${i}` }));
    await Promise.all(callers.map(({ store, actor }) => countInTransaction(store, actor)));
    const entries = await stores[0]!.listAudit();
    expect(entries.map((e) => e.detail?.seen)).toEqual(callers.map((_, i) => i));
  });

  it('interrupts a stranded run once when replicas recover at the same time', async () => {
    const clock = manualClock();
    const [a, b, c] = await replicas(3, { now: clock.now });
    const runs = await Promise.all(['x', 'y', 'z'].map((stack) => a!.createRun({ stack, trigger: 'schedule' })));
    // No lock is held: another host's run without heartbeats counts as stopped.
    const recovered = await Promise.all([b!.recoverInterrupted(), c!.recoverInterrupted()]);
    expect(
      recovered
        .flat()
        .map((r) => r.id)
        .sort(),
    ).toEqual(runs.map((r) => r.id).sort());
  });
});
