import type Database from 'better-sqlite3';
import type { StoreOwnership } from '../shared/process-owner.js';

/** What each group of store queries needs: the connection, the injected clock (epoch ms) and id source. */
export interface StoreContext extends StoreOwnership {
  db: Database.Database;
  nowMs: () => number;
  newId: () => string;
  /** Prepared statement for `sql`, compiled once per connection. */
  stmt: (sql: string) => Database.Statement;
}

export function createStoreContext(
  db: Database.Database,
  nowMs: () => number,
  newId: () => string,
  ownership: StoreOwnership,
): StoreContext {
  const cache = new Map<string, Database.Statement>();
  return {
    ...ownership,
    db,
    nowMs,
    newId,
    stmt(sql) {
      let prepared = cache.get(sql);
      if (!prepared) cache.set(sql, (prepared = db.prepare(sql)));
      return prepared;
    },
  };
}

/** Stacks come from config and may be first touched by any write; make sure the row exists. */
export function ensureStack(ctx: StoreContext, name: string): void {
  ctx.stmt('INSERT INTO stacks (name) VALUES (?) ON CONFLICT (name) DO NOTHING').run(name);
}
