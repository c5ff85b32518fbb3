import { parseArgs } from 'node:util';
import { openPgBossQueue } from '../../adapters/queue/pg-boss-queue.js';
import { openWorkerRegistry } from '../../adapters/store/open-store.js';
import { loadConfig } from '../../config/load.js';
import { configuredPools } from '../../domain/pool/configured-pools.js';
import type { JobQueue } from '../../ports/job-queue.js';
import type { WorkerRegistry } from '../../ports/worker-registry.js';
import { createPoolStatus } from '../../services/pool-status.js';
import type { CliIo } from '../io.js';
import { renderWorkersReport, workersExitCode, workersReportJson } from '../render/workers-report.js';

/**
 * `driftgate workers`: the pools of `runners: {type: workers}`, their queues, and the workers that
 * heartbeat into the shared store, live and stale. It only looks: pg-boss runs no maintenance here.
 */
export async function workersCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { json: { type: 'boolean' }, config: { type: 'string', short: 'c' } },
  });
  const config = await loadConfig({ file: values.config, cwd: io.cwd, env: io.env });
  const runners = config.runners;
  if (runners?.type !== 'workers' || config.store?.type !== 'postgres') {
    // Not a mistake in the file: a one-process deployment has no workers to list.
    io.stderr.write(
      `driftgate workers: ${config.file ?? 'the config'} runs terraform in the driftgate process itself (runners: local, the default), so it has no worker pools to list. Pools need runners: {type: workers} and store: {type: postgres} (docs/scale-out.md).\n`,
    );
    return 1;
  }
  let registry: WorkerRegistry | undefined;
  let queue: JobQueue | undefined;
  try {
    // One moment for every age on the page: the registry dates heartbeats on it, the pools are judged at it.
    const now = new Date();
    registry = await openWorkerRegistry(config, { now: () => now });
    const errors: Error[] = [];
    queue = await openPgBossQueue({
      url: config.store.url,
      supervise: false,
      poolSize: 1,
      maxRunSeconds: {
        check: config.terraform.timeouts.plan / 1000,
        apply: config.terraform.timeouts.apply / 1000,
        codify: config.terraform.timeouts.plan / 1000,
      },
      onError: (err) => errors.push(err),
      applicationName: 'driftgate-workers-cli',
    });
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
    await queue?.stop(1000);
    await registry?.close();
  }
}
