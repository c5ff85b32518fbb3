import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import {
  applyPostgresMigrations,
  POSTGRES_MIGRATIONS,
  PostgresSchemaTooNewError,
  STORE_TABLES,
} from '../../../../src/adapters/store/postgres/migrations.js';
import { openPostgresStore } from '../../../../src/adapters/store/postgres/open-postgres-store.js';
import type { Store } from '../../../../src/ports/store.js';
import { usePostgres } from '../../../helpers/postgres.js';

const server = usePostgres();
const opened: Store[] = [];
const pools: pg.Pool[] = [];

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const pool of pools.splice(0)) await pool.end();
});

async function open(url: string, schema?: string): Promise<Store> {
  const store = await openPostgresStore({ url, poolSize: 2, ...(schema ? { schema } : {}) });
  opened.push(store);
  return store;
}

function poolOn(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pools.push(pool);
  return pool;
}

const column = async (pool: pg.Pool, sql: string, values: unknown[] = []) =>
  (await pool.query(sql, values)).rows.map((r) => Object.values(r)[0]);

describe('postgres store migrations', () => {
  it('creates the schema in an empty database and records each version once', async () => {
    const url = await server.createDatabase();
    await open(url);
    const pool = poolOn(url);
    expect(await column(pool, 'SELECT version FROM schema_migrations ORDER BY version')).toEqual(
      POSTGRES_MIGRATIONS.map((_, i) => i + 1),
    );
    expect(await column(pool, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).toEqual([
      'agent_op_files',
      'agent_ops',
      'approvals',
      'artifacts',
      'audit',
      'locks',
      'outbox',
      'pending_changes',
      'pool_tokens',
      'remediations',
      'resource_index',
      'runs',
      'schema_migrations',
      'silences',
      'slack_messages',
      'snoozes',
      'stacks',
      'unmatched_change_counts',
      'unmatched_changes',
      'workers',
    ]);
    // What the owner role owns and grants is every table the steps make.
    expect(await column(pool, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).toEqual(
      [...STORE_TABLES].sort(),
    );
    expect(await column(pool, 'SELECT tgname FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1')).toEqual([
      'audit_no_truncate',
      'audit_no_update_or_delete',
    ]);
  });

  it('refuses TRUNCATE of the audit trail too', async () => {
    const url = await server.createDatabase();
    const store = await open(url);
    await store.appendAudit({ at: new Date(), actor: 'U1', action: 'approve' });
    await expect(poolOn(url).query('TRUNCATE audit')).rejects.toThrow(/audit is append-only: TRUNCATE is not allowed/);
    expect(await store.listAudit()).toHaveLength(1);
  });

  it('lets replicas starting at once on an empty database apply each step once, and reopens keep the data', async () => {
    const url = await server.createDatabase();
    const stores = await Promise.all([1, 2, 3].map(() => open(url)));
    const run = await stores[0]!.createRun({ stack: 'net', trigger: 'manual' });
    expect(await stores[2]!.getRun(run.id)).toEqual(run);
    await open(url);
    expect(await column(poolOn(url), 'SELECT count(*)::int FROM schema_migrations')).toEqual([
      POSTGRES_MIGRATIONS.length,
    ]);
    expect(await (await open(url)).getRun(run.id)).toEqual(run);
  });

  it('refuses a database migrated by a newer driftgate, naming the server and both versions but no password', async () => {
    const url = await server.createDatabase();
    await open(url);
    const newer = POSTGRES_MIGRATIONS.length + 3;
    await poolOn(url).query('INSERT INTO schema_migrations (version) VALUES ($1)', [newer]);
    const refused = await openPostgresStore({ url }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(PostgresSchemaTooNewError);
    const err = refused as PostgresSchemaTooNewError;
    expect([err.found, err.supported, err.code]).toEqual([newer, POSTGRES_MIGRATIONS.length, 'CONFIG_INVALID']);
    const { hostname, port, pathname, password } = new URL(url);
    expect(err.message).toContain(`${hostname}:${port}${pathname}`);
    expect(err.message).toContain('upgrade driftgate');
    expect(err.message).not.toContain(password);
  });

  it('rolls back a failing step entirely, keeping the steps before it', async () => {
    const url = await server.createDatabase();
    await open(url);
    const pool = poolOn(url);
    const steps = [
      ...POSTGRES_MIGRATIONS,
      'CREATE TABLE extra (x integer)',
      'CREATE TABLE half (x integer); CREATE TABLE nope (;',
    ];
    await expect(applyPostgresMigrations(pool, { database: 'test', lockScope: '' }, steps)).rejects.toThrow(/syntax/);
    expect(await column(pool, 'SELECT max(version) FROM schema_migrations')).toEqual([POSTGRES_MIGRATIONS.length + 1]);
    const tables = await pool.query("SELECT to_regclass('extra')::text AS extra, to_regclass('half')::text AS half");
    expect(tables.rows[0]).toEqual({ extra: 'extra', half: null });
  });

  it('keeps stores in separate schemas of one database apart', async () => {
    const url = await server.createDatabase();
    const a = await open(url, 'tenant_a');
    const b = await open(url, 'tenant_b');
    const run = await a.createRun({ stack: 'net', trigger: 'manual' });
    expect(await b.getRun(run.id)).toBeUndefined();
    expect(await a.getRun(run.id)).toEqual(run);
    expect(await column(poolOn(url), "SELECT count(*)::int FROM pg_tables WHERE schemaname = 'public'")).toEqual([0]);
    await expect(openPostgresStore({ url, schema: 'Robert"); DROP' })).rejects.toThrow(/lowercase SQL name/);
  });

  it('names the table, row and column of a corrupted row instead of returning bad data', async () => {
    const url = await server.createDatabase();
    const store = await open(url);
    const run = await store.createRun({ stack: 'net', trigger: 'manual' });
    await poolOn(url).query(`UPDATE runs SET counts = '{"create": -1}' WHERE id = $1`, [run.id]);
    await expect(store.getRun(run.id)).rejects.toThrow(new RegExp(`unreadable runs row ${run.id}: counts`));
  });
});
