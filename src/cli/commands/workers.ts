import { parseArgs } from 'node:util';
import { readWorkers } from '../../app/cli/workers.js';
import { loadConfig } from '../../config/load.js';
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
  const report = await readWorkers(config, runners.workerStaleAfter);
  io.stdout.write(
    values.json ? `${JSON.stringify(workersReportJson(report), null, 2)}\n` : renderWorkersReport(report),
  );
  return workersExitCode(report);
}
