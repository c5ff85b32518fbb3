import pg from 'pg';
import { DriftgateError } from '../../../domain/errors.js';
import type { ProcessOwner } from '../../../domain/run/model.js';
import type { Store } from '../../../ports/store.js';
import { ownerState, processOwner } from '../process-owner.js';
import { newRunId } from '../run-id.js';
import { advisoryLock, type PgContext, poolContext } from './context.js';
import { connectFailure, PostgresConnectError, serverOf } from './errors.js';
import { lockQueries } from './lock-queries.js';
import { applyPostgresMigrations, quoteIdentifier } from './migrations.js';
import { outboxQueries } from './outbox-queries.js';
import { recordQueries } from './record-queries.js';
import { recoverInterrupted } from './recover-interrupted.js';
import { remediationQueries } from './remediation-queries.js';
import { resourceIndexQueries } from './resource-index-queries.js';
import { runNoteQueries } from './run-note-queries.js';
import { runQueries } from './run-queries.js';
import { slackQueries } from './slack-queries.js';
import { stackQueries } from './stack-queries.js';

interface CommonOptions {
  now?: () => Date;
  newId?: () => string;
  /** The process recorded on the locks and in-flight runs this store writes; default this process. */
  owner?: ProcessOwner;
}

export type PostgresStoreOptions = CommonOptions &
  (
    | {
        /** `postgres://user:password@host:port/database`; never shown in messages (it holds the password). */
        url: string;
        /** Connections the store keeps at most (one per transaction in progress). Default 10. */
        poolSize?: number;
        /** Tables live in this schema (created when missing), default `public`. */
        schema?: string;
        /** The config key the URL came from, named in connection errors. Default `store.url`. */
        configKey?: string;
        connectTimeoutMs?: number;
      }
    | {
        /** A pool the caller owns: `close` leaves it open. Its search_path decides the schema. */
        pool: pg.Pool;
      }
  );

/**
 * The store on Postgres, shared by several processes on several hosts. Brings the schema up to date
 * first (see migrations.ts); a server that cannot be reached fails here, with a PostgresConnectError.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const now = options.now ?? (() => new Date());
  const schema = 'url' in options ? options.schema : undefined;
  // Passed in the connection's startup options, where only a plain name survives unquoted.
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new DriftgateError(
      'CONFIG_INVALID',
      `run store schema "${schema}" must be a lowercase SQL name ([a-z_][a-z0-9_]*)`,
    );
  }
  const pool = 'pool' in options ? options.pool : newPool(options);
  const ownsPool = !('pool' in options);
  try {
    await checkConnection(pool, options);
    await applyPostgresMigrations(pool, { database: describeDatabase(options), lockScope: schema ?? '', schema });
  } catch (err) {
    if (ownsPool) await pool.end().catch(() => {});
    throw err;
  }
  const self = processOwner();
  const ctx = poolContext({
    pool,
    nowMs: () => now().getTime(),
    newId: options.newId ?? (() => newRunId(now())),
    owner: options.owner ?? self,
    ownerState: (owner) => ownerState(owner, self),
    lockScope: schema ?? '',
  });
  let closed = false;
  return storeOn(ctx, async () => {
    if (!ownsPool || closed) return;
    closed = true;
    await pool.end();
  });
}

function newPool(options: Extract<PostgresStoreOptions, { url: string }>): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    ...(options.schema ? { options: `-c search_path=${quoteIdentifier(options.schema)}` } : {}),
  });
  // An idle connection the server drops (a restart, a failover) is reported here; without a listener it
  // would crash the process. The next query gets a fresh connection, or fails with its own error.
  pool.on('error', () => {});
  return pool;
}

async function checkConnection(pool: pg.Pool, options: PostgresStoreOptions): Promise<void> {
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    if (!('url' in options)) throw err;
    const server = serverOf(options.url) ?? { host: '(unparsable URL)', port: 0 };
    const { reason, retriable } = connectFailure(err);
    throw new PostgresConnectError(server.host, server.port, options.configKey ?? 'store.url', reason, retriable);
  }
}

function describeDatabase(options: PostgresStoreOptions): string {
  if (!('url' in options)) return 'postgres (pool)';
  const server = serverOf(options.url);
  const database = server ? new URL(options.url).pathname.slice(1) : '';
  return server ? `postgres ${server.host}:${server.port}/${database}` : 'postgres';
}

/** The store's methods on a context: the pool's outside a transaction, one connection's inside. */
function storeOn(ctx: PgContext, close: () => Promise<void>): Store {
  return {
    ...stackQueries(ctx),
    ...runQueries(ctx),
    ...runNoteQueries(ctx),
    ...recordQueries(ctx),
    ...lockQueries(ctx),
    ...slackQueries(ctx),
    ...outboxQueries(ctx),
    ...remediationQueries(ctx),
    ...resourceIndexQueries(ctx),
    recoverInterrupted: () => recoverInterrupted(ctx),
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
