import { join } from 'node:path';
import type { DriftgateConfig } from '../../config/schema.js';
import { ConfigError } from '../../domain/errors.js';
import type { ProcessOwner } from '../../domain/run/model.js';
import type { Store } from '../../ports/store.js';
import type { WorkerRegistry } from '../../ports/worker-registry.js';
import type { PoolTokenStore } from '../../ports/pool-tokens.js';
import { openSqliteStore } from './open-sqlite-store.js';
import { openPostgresStore } from './postgres/open-postgres-store.js';
import { openPostgresPoolTokens } from './postgres/pool-tokens.js';
import { openPostgresWorkerRegistry, type WorkerRegistryOptions } from './postgres/worker-registry.js';

export interface OpenStoreOptions {
  now?: () => Date;
  newId?: () => string;
  /** The process recorded on the locks and in-flight runs it writes; default this process. */
  owner?: ProcessOwner;
}

/** Where SQLite keeps the store of a data directory. */
export function sqliteStorePath(dataDir: string): string {
  return join(dataDir, 'driftgate.db');
}

/**
 * Opens the store the config names: SQLite in `<dataDir>/driftgate.db` (the default), or Postgres at
 * `store.url`. A Postgres server that cannot be reached fails with a PostgresConnectError naming its
 * host:port and `store.url`, never the URL.
 */
export async function openStore(
  config: Pick<DriftgateConfig, 'dataDir' | 'store'>,
  options: OpenStoreOptions = {},
): Promise<Store> {
  const store = config.store ?? { type: 'sqlite' };
  if (store.type === 'postgres') {
    return openPostgresStore({ url: store.url, poolSize: store.poolSize, configKey: 'store.url', ...options });
  }
  return openSqliteStore({ path: sqliteStorePath(config.dataDir), ...options });
}

/**
 * The registry of worker heartbeats, in the config's Postgres store (`runners: {type: workers}` needs
 * one). SQLite mode has no workers: asking for their registry there is a config mistake.
 */
export async function openWorkerRegistry(
  config: Pick<DriftgateConfig, 'store'>,
  options: WorkerRegistryOptions = {},
): Promise<WorkerRegistry> {
  const store = sharedStore(config, 'workers heartbeat in the shared store');
  return openPostgresWorkerRegistry({ url: store.url, configKey: 'store.url', ...options });
}

/** The pools' agent API tokens, in the config's Postgres store (the control plane's alone). */
export async function openPoolTokens(config: Pick<DriftgateConfig, 'store'>): Promise<PoolTokenStore> {
  const store = sharedStore(config, "pool tokens live in the control plane's shared store");
  return openPostgresPoolTokens({ url: store.url, configKey: 'store.url' });
}

/** The Postgres store of `runners: {type: workers}`; SQLite mode has no workers, so asking is a config mistake. */
function sharedStore(config: Pick<DriftgateConfig, 'store'>, why: string) {
  if (config.store?.type !== 'postgres')
    throw new ConfigError([{ path: 'store.type', message: `${why}: store: {type: postgres, url: \${DATABASE_URL}}` }]);
  return config.store;
}
