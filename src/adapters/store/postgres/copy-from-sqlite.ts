import Database from 'better-sqlite3';
import pg from 'pg';
import { DriftgateError } from '../../../domain/errors.js';
import { STORE_TABLES } from './migrations.js';

/** Not copied: the schema's own version, workers' heartbeats, tokens and jobs (SQLite has none of them). */
const NOT_COPIED = ['schema_migrations', 'workers', 'pool_tokens', 'agent_ops', 'agent_op_files'] as const;
type NotCopied = (typeof NOT_COPIED)[number];
type CopiedTable = Exclude<(typeof STORE_TABLES)[number], NotCopied>;

/**
 * In the order their references need (a run's stack first, as the migrations made them). Both schemas
 * keep the same columns (see migrations.ts), so rows move across as they are; Postgres-only columns
 * (`seq` of runs and approvals) fill in by themselves, in SQLite's insertion order.
 */
const TABLES = STORE_TABLES.filter((table): table is CopiedTable => !(NOT_COPIED as readonly string[]).includes(table));

/** Ids that rows elsewhere may refer to: kept as they are, and the sequence set after them. */
const IDENTITY = new Set(['audit.id', 'outbox.id', 'pending_changes.seq']);

export type CopyCounts = Record<CopiedTable, number>;

export class StoreCopyError extends DriftgateError {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
  }
}

/**
 * Copies a SQLite store (brought up to date by opening it first) into an empty Postgres store (its schema
 * made by opening it first), in one Postgres transaction: all of it or nothing. A target with any row in
 * any table is refused, never merged into.
 */
export async function copySqliteStoreToPostgres(sqlitePath: string, url: string): Promise<CopyCounts> {
  const source = new Database(sqlitePath, { readonly: true, fileMustExist: true });
  const target = new pg.Client({ connectionString: url, application_name: 'driftgate-migrate' });
  await target.connect();
  try {
    await target.query('BEGIN');
    for (const table of TABLES) {
      const { rows } = await target.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${table}) AS any`);
      if (rows[0]?.any)
        throw new StoreCopyError(
          `the Postgres store (store.url) already has rows in ${table}: migrate copies into an empty store only`,
        );
    }
    // One read transaction on SQLite: a consistent picture even if something writes meanwhile.
    const read = source.transaction(() =>
      TABLES.map((table) => source.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all() as Record<string, unknown>[]),
    );
    const snapshot = read();
    const counts = {} as CopyCounts;
    for (const [index, table] of TABLES.entries()) {
      const rows = snapshot[index] ?? [];
      counts[table] = rows.length;
      const columns = await postgresColumns(target, table);
      for (const row of rows) {
        const names = Object.keys(row).filter((name) => columns.has(name));
        const values = names.map((name) => row[name]);
        const placeholders = names.map((name, i) => (columns.get(name) === 'jsonb' ? `$${i + 1}::jsonb` : `$${i + 1}`));
        const overriding = names.some((name) => IDENTITY.has(`${table}.${name}`)) ? ' OVERRIDING SYSTEM VALUE' : '';
        await target.query(
          `INSERT INTO ${table} (${names.join(', ')})${overriding} VALUES (${placeholders.join(', ')})`,
          values,
        );
      }
    }
    for (const column of IDENTITY) {
      const [table, name] = column.split('.') as [string, string];
      await target.query(
        `SELECT setval(pg_get_serial_sequence('${table}', '${name}'), COALESCE((SELECT max(${name}) FROM ${table}), 0) + 1, false)`,
      );
    }
    await target.query('COMMIT');
    return counts;
  } catch (err) {
    await target.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    source.close();
    await target.end();
  }
}

async function postgresColumns(client: pg.Client, table: string): Promise<Map<string, string>> {
  const { rows } = await client.query<{ column_name: string; data_type: string }>(
    `SELECT column_name, data_type FROM information_schema.columns
      WHERE table_name = $1 AND table_schema = current_schema()`,
    [table],
  );
  return new Map(rows.map((r) => [r.column_name, r.data_type]));
}
