import { describe, expect, it } from 'vitest';
import { useTempStore } from './temp-store.js';

/** A promise and the function that settles it: lets a test hold a transaction open at a chosen point. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('store transactions on one SQLite connection', () => {
  const tmp = useTempStore();

  it('makes a call through the outer store wait until the open transaction commits', async () => {
    const store = tmp.open();
    const release = gate();
    const order: string[] = [];
    const transaction = store.atomically(async (tx) => {
      await tx.upsertStack('a');
      order.push('tx wrote');
      await release.opened;
      await tx.blockStack('a', 'held');
      order.push('tx done');
    });
    // Let the transaction reach its gate, then write through the outer store while it is open.
    await new Promise((resolve) => setImmediate(resolve));
    const outer = store.unblockStack('a').then(() => order.push('outer wrote'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['tx wrote']);
    release.open();
    await Promise.all([transaction, outer]);
    expect(order).toEqual(['tx wrote', 'tx done', 'outer wrote']);
    // The outer write ran after the commit, not inside the transaction: it is what stands.
    expect((await store.getStack('a'))?.blockedReason).toBeUndefined();
  });

  it('keeps an outer write waiting out a rolled-back transaction out of the rollback', async () => {
    const store = tmp.open();
    const release = gate();
    const transaction = store.atomically(async (tx) => {
      await tx.upsertStack('a');
      await release.opened;
      throw new Error('died here');
    });
    await new Promise((resolve) => setImmediate(resolve));
    const outer = store.upsertStack('b');
    release.open();
    await expect(transaction).rejects.toThrow('died here');
    await outer;
    expect((await store.listStacks()).map((s) => s.name)).toEqual(['b']);
  });

  it('runs transactions one after the other, and a nested one as part of the outer', async () => {
    const store = tmp.open();
    const results = await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        store.atomically(async (tx) => {
          await tx.upsertStack(name);
          await new Promise((resolve) => setImmediate(resolve));
          return tx.atomically(async (inner) => (await inner.listStacks()).map((s) => s.name));
        }),
      ),
    );
    expect(results).toEqual([['a'], ['a', 'b'], ['a', 'b', 'c']]);
    await expect(
      store.atomically(async (tx) => {
        await tx.atomically((inner) => inner.upsertStack('d'));
        throw new Error('outer failed');
      }),
    ).rejects.toThrow('outer failed');
    expect(await store.getStack('d')).toBeUndefined();
  });

  it('waits for an open transaction before closing', async () => {
    const store = tmp.open();
    const release = gate();
    const transaction = store.atomically(async (tx) => {
      await release.opened;
      return tx.upsertStack('a');
    });
    await new Promise((resolve) => setImmediate(resolve));
    const closed = store.close();
    release.open();
    await expect(transaction).resolves.toMatchObject({ name: 'a' });
    await closed;
    const again = tmp.open();
    expect((await again.getStack('a'))?.name).toBe('a');
  });
});
