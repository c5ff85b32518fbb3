import pg from 'pg';
import { DriftgateError } from '../../../domain/errors.js';
import { connectFailure, PostgresConnectError, serverOf } from './errors.js';
import { withTransaction } from './postgres-context.js';
import { applyPostgresMigrations, POSTGRES_MIGRATIONS, quoteIdentifier, schemaVersion } from './migrations.js';
import { auditExposure, currentRole, grantRuntime, takeOverStore } from './roles.js';

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
      /**
       * The role that owns the schema (docs/production.md: "Two database roles"): when its URL is given, it makes and
       * migrates the tables and grants the role of `url` what the processes need; without it, a schema
       * that needs migrating is migrated by the role of `url` if it may, else refused naming `variable`.
       */
      schemaOwner?: { url?: string; variable: string };
      /** Told why the role of `url` could rewrite the audit trail, when it can (one role for everything). */
      onAuditExposed?: (reasons: string[]) => void;
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
    const target = { database: describeDatabase(options), lockScope: schema ?? '', schema };
    if ('url' in options && options.schemaOwner?.url)
      await migrateAsOwner(
        pool,
        { ...options, url: options.schemaOwner.url, configKey: options.schemaOwner.variable },
        target,
      );
    else await migrateAsRuntime(pool, target, 'url' in options ? options.schemaOwner?.variable : undefined);
    if ('url' in options && options.onAuditExposed) {
      const reasons = await auditExposure(pool);
      if (reasons.length > 0) options.onAuditExposed(reasons);
    }
  } catch (err) {
    await end().catch(() => {});
    throw err;
  }
  return { pool, schema, end };
}

type MigrationTarget = { database: string; lockScope: string; schema?: string };

/** The owner role takes the tables over if another role made them, migrates, and grants the processes' role. */
async function migrateAsOwner(
  runtime: pg.Pool,
  owner: Extract<PostgresConnection, { url: string }>,
  target: MigrationTarget,
): Promise<void> {
  const pool = newPool({ ...owner, poolSize: 1 });
  try {
    await checkConnection(pool, owner);
    const runtimeRole = await currentRole(runtime);
    await withTransaction(pool, (client) => takeOverStore(client, target));
    await applyPostgresMigrations(pool, target);
    await withTransaction(pool, (client) => grantRuntime(client, { runtimeRole, ...target }));
  } finally {
    await pool.end();
  }
}

/** Without the owner's URL: the processes' role migrates if it may (one role for everything, as before). */
async function migrateAsRuntime(pool: pg.Pool, target: MigrationTarget, ownerVariable: string | undefined) {
  try {
    await applyPostgresMigrations(pool, target);
  } catch (err) {
    if ((err as { code?: unknown }).code !== '42501') throw err;
    throw new StoreNeedsOwnerError(
      target.database,
      await currentRole(pool),
      await schemaVersion(pool),
      ownerVariable ?? 'DATABASE_OWNER_URL',
      { cause: err },
    );
  }
}

/** The schema needs a step the processes' role may not take, and no owner credential was given. */
export class StoreNeedsOwnerError extends DriftgateError {
  constructor(
    readonly database: string,
    readonly role: string,
    readonly found: number,
    readonly variable: string,
    options?: { cause?: unknown },
  ) {
    super(
      'CONFIG_INVALID',
      `run store ${database} is at schema version ${found} and this driftgate needs ${POSTGRES_MIGRATIONS.length}, which store.url's role "${role}" may not make: run driftgate migrate with the owner role's URL in ${variable} (or start this process once with it)`,
      options,
    );
  }
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
