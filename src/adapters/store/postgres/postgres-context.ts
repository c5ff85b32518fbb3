import pg from 'pg';
import { StoreUnavailableError } from '../../../domain/errors.js';
import type { StoreOwnership } from '../shared/process-owner.js';

/** A pool (each query on whichever connection is free) or one connection (inside a transaction). */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/**
 * Row values as the SQLite rows hand them to the shared row parsers (../rows.ts): bigint epoch
 * milliseconds and serial ids as numbers (epoch ms stay far below 2^53), JSON as its text.
 */
const ROW_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8) return Number;
    if (oid === pg.types.builtins.JSONB || oid === pg.types.builtins.JSON) return (text: string) => text;
    return pg.types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** What each group of Postgres store queries needs: where to send SQL, the clock (epoch ms), the id source. */
export interface PgContext extends StoreOwnership {
  db: Queryable;
  nowMs: () => number;
  newId: () => string;
  /** Prefix of the advisory-lock keys, so stores in separate schemas of one database do not wait on each other. */
  lockScope: string;
  /** Runs `work` in a transaction: on the pool a connection of its own (BEGIN … COMMIT), inside one, in it. */
  transaction<T>(work: (ctx: PgContext) => Promise<T>): Promise<T>;
  /** True on a context bound to one connection inside a transaction. */
  inTransaction: boolean;
}

export async function rows(ctx: Pick<PgContext, 'db'>, text: string, values: unknown[] = []): Promise<unknown[]> {
  const result = await ctx.db.query({ text, values, types: ROW_TYPES });
  return result.rows as unknown[];
}

export async function firstRow(ctx: Pick<PgContext, 'db'>, text: string, values: unknown[] = []) {
  return (await rows(ctx, text, values))[0];
}

/** Rows changed by a write. */
export async function changes(ctx: Pick<PgContext, 'db'>, text: string, values: unknown[] = []): Promise<number> {
  const result = await ctx.db.query({ text, values, types: ROW_TYPES });
  return result.rowCount ?? 0;
}

/**
 * Waits for a transaction-scoped advisory lock on `key` (released by COMMIT or ROLLBACK). Keys are
 * hashed to 32 bits: two keys that collide only wait on each other more than they had to.
 */
export async function advisoryLock(ctx: PgContext, key: string): Promise<void> {
  await ctx.db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${ctx.lockScope}:${key}`]);
}

export interface PgContextOptions extends StoreOwnership {
  pool: pg.Pool;
  nowMs: () => number;
  newId: () => string;
  lockScope: string;
}

/** Errors that say the server is out of reach, not that the statement was wrong. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);
function connectionLost(err: unknown): string | undefined {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    // SQLSTATE class 08 (connection exception) and 57P01-57P03 (shut down, crashed, still starting).
    if (CONNECTION_CODES.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code)) return code;
    return undefined;
  }
  const message = err instanceof Error ? err.message : '';
  return /^Connection terminated|timeout exceeded when trying to connect/i.test(message) ? message : undefined;
}

/** Rethrows a lost connection as StoreUnavailableError, so callers can tell "try again" from a bug. */
function rethrow(err: unknown): never {
  const reason = connectionLost(err);
  throw reason ? new StoreUnavailableError(reason, { cause: err }) : err;
}

/** The pool (or a connection) with its failures to reach the server named as such. */
export function guarded(db: Queryable): Queryable {
  const query = ((...args: Parameters<pg.Pool['query']>) =>
    (db.query as (...a: unknown[]) => Promise<unknown>)(...args).catch(rethrow)) as pg.Pool['query'];
  return { query };
}

export function poolContext(options: PgContextOptions): PgContext {
  const { pool, ...rest } = options;
  const ctx: PgContext = {
    ...rest,
    db: guarded(pool),
    inTransaction: false,
    transaction: (work) => withTransaction(pool, (client) => work(clientContext(ctx, client))),
  };
  return ctx;
}

/** BEGIN, `work` on a connection of its own, COMMIT; ROLLBACK when it throws. */
export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect().catch(rethrow);
  let broken: Error | undefined;
  // A checked-out client has no listener of the pool's: a connection that ends between two statements
  // (Postgres restarting) would emit an 'error' nobody handles, which ends the process. The statement
  // that comes next fails instead, and the connection is dropped at release.
  const lost = (err: Error) => {
    broken = err;
  };
  client.on('error', lost);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    // A connection that cannot even roll back is dropped rather than handed to the next caller.
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw err;
  } finally {
    client.removeListener('error', lost);
    client.release(broken);
  }
}

/**
 * Inside a transaction, a query group's own transaction joins it: the outer one commits or rolls back all
 * of it. (No savepoints: queries of one transaction may be in flight together, and savepoints nest only
 * one inside the other. A failed statement aborts the whole transaction, which then rolls back.)
 */
function clientContext(parent: PgContext, client: pg.PoolClient): PgContext {
  const ctx: PgContext = { ...parent, db: guarded(client), inTransaction: true, transaction: (work) => work(ctx) };
  return ctx;
}

/** Stacks come from config and may be first touched by any write; make sure the row exists. */
export async function ensureStack(ctx: PgContext, name: string): Promise<void> {
  await ctx.db.query('INSERT INTO stacks (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [name]);
}
