import { type PoolHealth, poolHealth } from '../../domain/pool/pool-health.js';
import type { AgentOpStore } from '../../ports/agent-ops.js';
import type { WorkerRegistry } from '../../ports/worker-registry.js';

export interface PoolStatusDeps {
  registry: Pick<WorkerRegistry, 'list'>;
  /** The agent API's jobs: queued and leased per pool. */
  queue: Pick<AgentOpStore, 'depth'>;
  /** The pools the stacks name (configuredPools). */
  pools: readonly string[];
  now: () => Date;
  /** `runners.workerStaleAfter`: a worker silent this long no longer counts. */
  staleAfterMs: number;
}

/** Each pool's health, read fresh from the registry and the queue at every call. */
export type PoolStatus = () => Promise<PoolHealth[]>;

/**
 * Pool health for `/drift status`, the App Home, `/metrics`, `driftgate workers` and the unserved-pool
 * notice. The pools are the configured ones, and those of any worker heard from: a worker started with
 * a pool no stack names (a typo in `--pool`) shows up beside the pool that waits for it.
 */
export function createPoolStatus(deps: PoolStatusDeps): PoolStatus {
  return async () => {
    const workers = await deps.registry.list();
    const pools = [...new Set([...deps.pools, ...workers.map((w) => w.pool)])].sort();
    const depths = await deps.queue.depth(pools);
    return poolHealth(pools, workers, depths, deps.now(), deps.staleAfterMs);
  };
}
