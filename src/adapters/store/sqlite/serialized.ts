import type Database from 'better-sqlite3';
import type { Store } from '../../../ports/store.js';
import type { Synchronous } from './synchronous.js';

/** Every query of the store, synchronous: all of the port but the transaction and closing. */
export type StoreQueries = Synchronous<Omit<Store, 'atomically' | 'close'>>;

type Method = (...args: unknown[]) => unknown;

/**
 * The asynchronous store over one better-sqlite3 connection. Each query runs synchronously, so on its own
 * it is atomic and nothing interleaves with it. A transaction is different: `atomically` awaits its work,
 * and the connection is shared, so while one is open a call through the outer store would land inside it
 * (joining its commit or its rollback). The outer store therefore waits for the open transaction to end;
 * the store handed to the work (`tx`) runs its queries directly.
 */
export function serializedStore(db: Database.Database, queries: StoreQueries): Store {
  /** Settles when the open transaction ends; undefined when none is open. */
  let open: Promise<void> | undefined;

  const tx = {
    ...wrap(
      queries,
      (run) =>
        async (...args) =>
          run(...args),
    ),
    // Nested: the work already runs inside the outer transaction, which commits or rolls back all of it.
    atomically: (work) => work(tx),
    close: () => Promise.reject(new Error('close() called on a transaction: close the store itself')),
  } as Store;

  const outer = {
    ...wrap(queries, (run) => async (...args) => {
      // The check and the query run in one go: nothing can open a transaction in between.
      while (open) await open;
      return run(...args);
    }),
    async atomically(work) {
      while (open) await open;
      let end!: () => void;
      open = new Promise((resolve) => {
        end = resolve;
      });
      try {
        // IMMEDIATE takes the write lock now: another connection's write waits (busy timeout) instead of
        // failing this transaction halfway through.
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await work(tx);
          db.exec('COMMIT');
          return result;
        } catch (err) {
          // Some SQLite errors roll the transaction back themselves.
          if (db.inTransaction) db.exec('ROLLBACK');
          throw err;
        }
      } finally {
        open = undefined;
        end();
      }
    },
    async close() {
      while (open) await open;
      db.close();
    },
  } as Store;

  return outer;
}

/** Each query, made asynchronous by `toAsync`. */
function wrap(queries: StoreQueries, toAsync: (run: Method) => Method): Record<string, Method> {
  const wrapped: Record<string, Method> = {};
  for (const [name, query] of Object.entries(queries)) wrapped[name] = toAsync(query as Method);
  return wrapped;
}
