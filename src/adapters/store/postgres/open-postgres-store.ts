import type { ProcessOwner } from '../../../domain/run/model.js';
import type { Store } from '../../../ports/store.js';
import { ownerState, processOwner } from '../shared/process-owner.js';
import { queriesOn } from '../shared/query-groups.js';
import { newRunId } from '../shared/run-id.js';
import { advisoryLock, type PgContext, poolContext } from './postgres-context.js';
import { openMigratedPool, type PostgresConnection } from './connect.js';
import { recoverInterrupted } from './recover-interrupted.js';
import * as groups from './store-queries.js';

interface CommonOptions {
  now?: () => Date;
  newId?: () => string;
  /** The process recorded on the locks and in-flight runs this store writes; default this process. */
  owner?: ProcessOwner;
}

export type PostgresStoreOptions = CommonOptions & PostgresConnection;

/**
 * The store on Postgres, shared by several processes on several hosts. Brings the schema up to date
 * first (see migrations.ts); a server that cannot be reached fails here, with a PostgresConnectError.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const now = options.now ?? (() => new Date());
  const { pool, schema, end } = await openMigratedPool(options);
  const self = processOwner();
  const ctx = poolContext({
    pool,
    nowMs: () => now().getTime(),
    newId: options.newId ?? (() => newRunId(now())),
    owner: options.owner ?? self,
    ownerState: (owner) => ownerState(owner, self),
    lockScope: schema ?? '',
  });
  return storeOn(ctx, end);
}

/** The store's methods on a context: the pool's outside a transaction, one connection's inside. */
function storeOn(ctx: PgContext, close: () => Promise<void>): Store {
  return {
    ...queriesOn(ctx, groups),
    recoverInterrupted: (options) => recoverInterrupted(ctx, options),
    ping: async () => {
      await ctx.db.query('SELECT 1');
    },
    atomically: (work) =>
      ctx.transaction(async (tx) => {
        // Transactions take turns, across every process on the database, as SQLite's one writer at a time
        // does: what `work` reads cannot change under it through another `atomically`. Single calls outside
        // one still commit in between; their own compare-and-set guards (transition) keep them safe.
        if (!ctx.inTransaction) await advisoryLock(tx, 'atomically');
        return work(storeOn(tx, closeInTransaction));
      }),
    close,
  };
}

async function closeInTransaction(): Promise<void> {
  throw new Error('run store: close the store, not the transaction-bound store handed to atomically');
}
