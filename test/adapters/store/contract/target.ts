import { afterEach, beforeEach } from 'vitest';
import type { Store } from '../../../../src/ports/store.js';

export type ContractStore = Store & { close(): Promise<void> };

/** What the contract suite needs of a store implementation: it speaks to the store through the port only. */
export interface StoreContractTarget {
  /** Gives the next `open` calls an empty database of their own (called before each test). */
  freshDatabase(): Promise<void>;
  /** One more store on the current database: another connection, as another process would have. */
  open(options?: { now?: () => Date }): Promise<ContractStore>;
  /** Runs SQL on the current database beside the store, as an operator with a SQL shell could. */
  execRaw(sql: string): Promise<void>;
}

/** The target with every store a test opens closed after it. */
export function useTarget(target: StoreContractTarget): StoreContractTarget {
  const opened: ContractStore[] = [];
  beforeEach(() => target.freshDatabase());
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });
  return {
    freshDatabase: () => target.freshDatabase(),
    async open(options) {
      const store = await target.open(options);
      opened.push(store);
      return store;
    },
    execRaw: (sql) => target.execRaw(sql),
  };
}

export const counts = (create: number) => ({ create, update: 0, delete: 0, replace: 0, read: 0 });

/** A run waiting in `approved`, ready for the `approved -> applying` race. */
export async function approvedRun(store: Store, stack = 'net') {
  const run = await store.createRun({ stack, trigger: 'schedule', commitSha: 'abc123' });
  await store.transition(run.id, 'planning', 'pending_approval', {
    kind: 'pending_change',
    planSha256: 'f'.repeat(64),
  });
  return (await store.transition(run.id, 'pending_approval', 'approved'))!;
}
