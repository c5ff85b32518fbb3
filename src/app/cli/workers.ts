import { openAgentOps, openWorkerRegistry } from '../../adapters/store/open-store.js';
import type { DriftgateConfig } from '../../config/schema.js';
import { configuredPools } from '../../domain/pool/configured-pools.js';
import type { PoolHealth, WorkerBeat } from '../../domain/pool/pool-health.js';
import type { AgentOpStore } from '../../ports/agent-ops.js';
import type { WorkerRegistry } from '../../ports/worker-registry.js';
import { createPoolStatus } from '../../services/pools/pool-status.js';

export interface WorkersReading {
  pools: PoolHealth[];
  workers: WorkerBeat[];
  now: Date;
  staleAfterMs: number;
}

/**
 * `driftgate workers`: the pools, their agent API jobs (queued, leased, the oldest queued one's age), and
 * the workers whose heartbeats the control plane recorded, live and stale. It only looks.
 */
export async function readWorkers(
  config: Pick<DriftgateConfig, 'store' | 'stacks'>,
  staleAfterMs: number,
): Promise<WorkersReading> {
  let registry: WorkerRegistry | undefined;
  let queue: AgentOpStore | undefined;
  try {
    // One moment for every age on the page: the registry dates heartbeats on it, the pools are judged at it.
    const now = new Date();
    registry = await openWorkerRegistry(config, { now: () => now });
    queue = await openAgentOps(config);
    const status = createPoolStatus({
      registry,
      queue,
      pools: configuredPools(config.stacks),
      now: () => now,
      staleAfterMs,
    });
    const pools = await status();
    return { pools, workers: await registry.list(), now, staleAfterMs };
  } finally {
    await queue?.close();
    await registry?.close();
  }
}
