import { parseArgs } from 'node:util';
import { openAgentOps, openWorkerRegistry } from '../../adapters/store/open-store.js';
import { loadConfig } from '../../config/load.js';
import { configuredPools } from '../../domain/pool/configured-pools.js';
import type { AgentOpStore } from '../../ports/agent-ops.js';
import type { WorkerRegistry } from '../../ports/worker-registry.js';
import { createPoolStatus } from '../../services/pool-status.js';
import type { CliIo } from '../io.js';
import { configOptions } from '../config-options.js';
import { renderWorkersReport, workersExitCode, workersReportJson } from '../render/workers-report.js';

/**
 * `driftgate workers`: the pools of `runners: {type: workers}`, their agent API jobs (queued, leased, the
 * oldest queued one's age), and the workers whose heartbeats the control plane recorded, live and stale.
 * It only looks.
 */
export async function workersCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { json: { type: 'boolean' }, config: { type: 'string', short: 'c' } },
  });
  const config = await loadConfig(configOptions(values.config, io));
  const runners = config.runners;
  if (runners?.type !== 'workers' || config.store?.type !== 'postgres') {
    // Not a mistake in the file: a one-process deployment has no workers to list.
    io.stderr.write(
      `driftgate workers: ${config.file ?? 'the config'} runs terraform in the driftgate process itself (runners: local, the default), so it has no worker pools to list. Pools need runners: {type: workers} and store: {type: postgres} (docs/scale-out.md).\n`,
    );
    return 1;
  }
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
      staleAfterMs: runners.workerStaleAfter,
    });
    const pools = await status();
    const report = { pools, workers: await registry.list(), now, staleAfterMs: runners.workerStaleAfter };
    io.stdout.write(
      values.json ? `${JSON.stringify(workersReportJson(report), null, 2)}\n` : renderWorkersReport(report),
    );
    return workersExitCode(report);
  } finally {
    await queue?.close();
    await registry?.close();
  }
}
