import { parseArgs } from 'node:util';
import { startWorker } from '../../app/worker.js';
import { loadConfig } from '../../config/load.js';
import { isPoolName, POOL_NAME_RULE } from '../../domain/pool/pool-name.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../io.js';
import { logSettings } from '../log-options.js';
import { portOption } from '../port-option.js';

/** `driftgate worker --pool NAME [--concurrency N]`: takes its pool's jobs until SIGTERM/SIGINT. */
export async function workerCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string', short: 'c' },
      pool: { type: 'string' },
      concurrency: { type: 'string' },
      port: { type: 'string' },
    },
  });
  const pool = values.pool ?? io.env.DRIFTGATE_POOL;
  if (!pool) throw new UsageError('say which pool this worker serves: --pool NAME (or DRIFTGATE_POOL)');
  if (!isPoolName(pool)) throw new UsageError(`--pool ${pool} is not a pool name: ${POOL_NAME_RULE}`);
  const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
  if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64))
    throw new UsageError(`--concurrency ${values.concurrency} is not a number of jobs from 1 to 64`);
  const config = await loadConfig({ file: values.config, cwd: io.cwd, env: io.env });
  // As serve: a stop asked while it starts takes effect once it has started.
  const stopAsked = new Promise<void>((resolve) => io.onShutdown(() => resolve()));
  const running = await startWorker(config, {
    env: io.env,
    pool,
    ...(concurrency ? { concurrency } : {}),
    ...portOption(values.port, io),
    logDestination: io.stderr,
    log: logSettings(io.log, config.log.level, 'server'),
  });
  await stopAsked;
  await running.stop();
  return 0;
}
