import pg from 'pg';
import { DriftgateError } from '../../../domain/errors.js';
import { connectFailure, PostgresConnectError, serverOf } from './errors.js';
import { applyPostgresMigrations, quoteIdentifier } from './migrations.js';

/** Where the store's Postgres is: a URL (a pool of our own) or a pool the caller owns. */
export type PostgresConnection =
  | {
      /** `postgres://user:password@host:port/database`; never shown in messages (it holds the password). */
      url: string;
      /** Connections kept at most (one per transaction in progress). Default 10. */
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
    };

export interface MigratedPool {
  pool: pg.Pool;
  /** The schema named in the options, if any: the prefix of advisory-lock keys. */
  schema: string | undefined;
  /** Ends the pool when it is ours; a caller's pool stays open. */
  end(): Promise<void>;
}

/**
 * A pool on the store's database with the schema brought up to date (see migrations.ts). A server that
 * cannot be reached fails here, with a PostgresConnectError naming host:port and the config key.
 */
export async function openMigratedPool(options: PostgresConnection): Promise<MigratedPool> {
  const schema = 'url' in options ? options.schema : undefined;
  // Passed in the connection's startup options, where only a plain name survives unquoted.
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new DriftgateError(
      'CONFIG_INVALID',
      `run store schema "${schema}" must be a lowercase SQL name ([a-z_][a-z0-9_]*)`,
    );
  }
  const pool = 'pool' in options ? options.pool : newPool(options);
  let ended = false;
  const end = async () => {
    if ('pool' in options || ended) return;
    ended = true;
    await pool.end();
  };
  try {
    await checkConnection(pool, options);
    await applyPostgresMigrations(pool, { database: describeDatabase(options), lockScope: schema ?? '', schema });
  } catch (err) {
    await end().catch(() => {});
    throw err;
  }
  return { pool, schema, end };
}

function newPool(options: Extract<PostgresConnection, { url: string }>): pg.Pool {
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

async function checkConnection(pool: pg.Pool, options: PostgresConnection): Promise<void> {
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    if (!('url' in options)) throw err;
    const server = serverOf(options.url) ?? { host: '(unparsable URL)', port: 0 };
    const { reason, retriable } = connectFailure(err);
    throw new PostgresConnectError(server.host, server.port, options.configKey ?? 'store.url', reason, retriable);
  }
}

function describeDatabase(options: PostgresConnection): string {
  if (!('url' in options)) return 'postgres (pool)';
  const server = serverOf(options.url);
  const database = server ? new URL(options.url).pathname.slice(1) : '';
  return server ? `postgres ${server.host}:${server.port}/${database}` : 'postgres';
}
