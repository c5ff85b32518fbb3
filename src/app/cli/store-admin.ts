/**
 * The store's upkeep from a terminal: `driftgate migrate` (the Postgres schema, and `--to postgres` the copy
 * of the SQLite store into it) and `driftgate backup` (a consistent copy of the SQLite store while serve runs).
 */
import { openSqliteStore } from '../../adapters/store/sqlite/open-sqlite-store.js';
import { openStore, storeOwnerVariable } from '../../adapters/store/open-store.js';
import { POSTGRES_MIGRATIONS } from '../../adapters/store/postgres/migrations.js';
import type { DriftgateConfig } from '../../config/schema.js';

export { backupSqliteStore } from '../../adapters/store/sqlite/backup-sqlite.js';
export { sqliteStorePath } from '../../adapters/store/open-store.js';
export { copySqliteStoreToPostgres } from '../../adapters/store/postgres/copy-from-sqlite.js';

export interface SchemaMigrated {
  /** The schema's version now. */
  version: number;
  /** The environment variable of the owner role's URL (`store.ownerUrlEnv`), and its value when set. */
  ownerVariable: string;
  ownerUrl?: string;
  /** Why the role of `store.url` could rewrite the audit trail, when it can. */
  exposed: string[];
}

/**
 * `driftgate migrate`: brings the Postgres store's schema up to date, as the owner role when the environment
 * holds its URL. With `sqliteFrom`, that SQLite store's schema too, so that a copy moves rows between two
 * current schemas.
 */
export async function migratePostgresSchema(
  config: Pick<DriftgateConfig, 'dataDir' | 'store'>,
  options: { env: Record<string, string | undefined>; sqliteFrom?: string },
): Promise<SchemaMigrated> {
  // A Postgres store's config always names one (its default when unset).
  const ownerVariable = storeOwnerVariable(config)!;
  const ownerUrl = options.env[ownerVariable] || undefined;
  const exposed: string[] = [];
  // Opening brings each side's schema up to date.
  if (options.sqliteFrom) await (await openSqliteStore({ path: options.sqliteFrom })).close();
  await (await openStore(config, { env: options.env, onAuditExposed: (reasons) => exposed.push(...reasons) })).close();
  return { version: POSTGRES_MIGRATIONS.length, ownerVariable, ...(ownerUrl ? { ownerUrl } : {}), exposed };
}
