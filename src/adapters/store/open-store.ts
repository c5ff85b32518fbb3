import { join } from 'node:path';
import { DEFAULT_OWNER_URL_ENV, type DriftgateConfig } from '../../config/schema.js';
import { ConfigError } from '../../domain/errors.js';
import type { ProcessOwner } from '../../domain/run/model.js';
import type { Store } from '../../ports/store.js';
import type { WorkerRegistry } from '../../ports/worker-registry.js';
import type { PoolTokenStore } from '../../ports/pool-tokens.js';
import type { AgentOpStore } from '../../ports/agent-ops.js';
import { openPostgresAgentOps } from './postgres/agent-ops.js';
import { openSqliteStore } from './sqlite/open-sqlite-store.js';
import { openPostgresStore } from './postgres/open-postgres-store.js';
import { openPostgresPoolTokens } from './postgres/pool-tokens.js';
import { openPostgresWorkerRegistry, type WorkerRegistryOptions } from './postgres/worker-registry.js';

export interface OpenStoreOptions {
  now?: () => Date;
  newId?: () => string;
  /** The process recorded on the locks and in-flight runs it writes; default this process. */
  owner?: ProcessOwner;
  /**
   * Where the owner role's URL is looked for (`store.ownerUrlEnv`): with it, this process migrates the
   * Postgres schema as the owner and grants the role of `store.url`. Absent: the role of `store.url` only.
   */
  env?: Record<string, string | undefined>;
  /** Told why the role of `store.url` could rewrite the audit trail, when it can. */
  onAuditExposed?: (reasons: string[]) => void;
}

/** The environment variable that holds the Postgres owner role's URL, for this config. */
export function storeOwnerVariable(config: Pick<DriftgateConfig, 'store'>): string | undefined {
  return config.store?.type === 'postgres' ? (config.store.ownerUrlEnv ?? DEFAULT_OWNER_URL_ENV) : undefined;
}

/** Where SQLite keeps the store of a data directory. */
export function sqliteStorePath(dataDir: string): string {
  return join(dataDir, 'driftgate.db');
}

/**
 * Opens the store the config names: SQLite in `<dataDir>/driftgate.db` (the default), or Postgres at
 * `store.url` (its schema migrated by the owner role when `options.env` holds its URL). A Postgres
 * server that cannot be reached fails with a PostgresConnectError naming its host:port and `store.url`,
 * never the URL.
 */
export async function openStore(
  config: Pick<DriftgateConfig, 'dataDir' | 'store'>,
  options: OpenStoreOptions = {},
): Promise<Store> {
  const store = config.store ?? { type: 'sqlite' };
  if (store.type === 'postgres') {
    const { env, ...rest } = options;
    const variable = store.ownerUrlEnv ?? DEFAULT_OWNER_URL_ENV;
    return openPostgresStore({
      url: store.url,
      poolSize: store.poolSize,
      configKey: 'store.url',
      schemaOwner: { url: env?.[variable] || undefined, variable },
      ...rest,
    });
  }
  return openSqliteStore({
    path: sqliteStorePath(config.dataDir),
    now: options.now,
    newId: options.newId,
    owner: options.owner,
  });
}

/**
 * The registry of worker heartbeats, in the config's Postgres store (`runners: {type: workers}` needs
 * one). SQLite mode has no workers: asking for their registry there is a config mistake.
 */
export async function openWorkerRegistry(
  config: Pick<DriftgateConfig, 'store'>,
  options: WorkerRegistryOptions = {},
): Promise<WorkerRegistry> {
  return openPostgresWorkerRegistry({
    ...sharedConnection(config, 'workers heartbeat in the shared store'),
    ...options,
  });
}

/** The pools' agent API tokens, in the config's Postgres store (the control plane's alone). */
export async function openPoolTokens(config: Pick<DriftgateConfig, 'store'>): Promise<PoolTokenStore> {
  return openPostgresPoolTokens(sharedConnection(config, "pool tokens live in the control plane's shared store"));
}

/** The agent API's jobs (`runners: {type: workers}`), in the config's Postgres store (the control plane's alone). */
export async function openAgentOps(config: Pick<DriftgateConfig, 'store'>): Promise<AgentOpStore> {
  return openPostgresAgentOps(
    sharedConnection(config, "the agent API keeps its jobs in the control plane's shared store"),
  );
}

/** The Postgres store of `runners: {type: workers}`; SQLite mode has no workers, so asking is a config mistake. */
function sharedConnection(config: Pick<DriftgateConfig, 'store'>, why: string) {
  if (config.store?.type !== 'postgres')
    throw new ConfigError([{ path: 'store.type', message: `${why}: store: {type: postgres, url: \${DATABASE_URL}}` }]);
  return { url: config.store.url, configKey: 'store.url', schemaOwner: { variable: storeOwnerVariable(config)! } };
}
