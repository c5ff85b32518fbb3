import { parseArgs } from 'node:util';
import { noControlPlaneUrl, startAgentWorker, usesAgentApi } from '../../app/agent-worker.js';
import { environmentValue } from '../../config/environment.js';
import { loadConfig } from '../../config/load.js';
import { workerPoolIssues } from '../../config/runners.js';
import { ConfigError, DriftgateError } from '../../domain/errors.js';
import { isPoolName, POOL_NAME_RULE } from '../../domain/pool/pool-name.js';
import type { CliIo } from '../io.js';
import { configOptions } from '../config-options.js';
import type { CheckoutSourceHead } from '../../config/discover-in-source.js';
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
  const pool = values.pool ?? environmentValue(io.env, 'DRIFTGATE_POOL');
  if (!pool) throw new UsageError('say which pool this worker serves: --pool NAME (or DRIFTGATE_POOL)');
  if (!isPoolName(pool)) throw new UsageError(`--pool ${pool} is not a pool name: ${POOL_NAME_RULE}`);
  const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
  if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64))
    throw new UsageError(`--concurrency ${values.concurrency} is not a number of jobs from 1 to 64`);
  // Direct workers (the shared store and bucket in every worker's hands) are gone: a worker that was one
  // is told what it now needs, before it reads a config that may still give it the store.
  if (!usesAgentApi(io.env)) {
    const refused = noControlPlaneUrl(pool);
    throw new DriftgateError('CONFIG_INVALID', `${refused.problem}. ${refused.fix}`);
  }
  const config = await loadConfig({ ...configOptions(values.config, io), role: 'agent-worker' });
  const issues = workerPoolIssues(config, pool, '`driftgate worker` takes the jobs of');
  if (issues.length) throw new ConfigError(issues, config.file);
  // A stop asked while it starts (waiting for its control plane, say) ends that start, and is logged.
  const stop = new AbortController();
  const stopAsked = new Promise<string>((resolve) =>
    io.onShutdown((signal) => {
      stop.abort(`${signal} received`);
      resolve(`${signal} received`);
    }),
  );
  const options = {
    env: io.env,
    pool,
    ...(concurrency ? { concurrency } : {}),
    ...portOption(values.port, io),
    logDestination: io.stderr,
    log: logSettings(io.log, config.log.level, 'server'),
    stopAsked: stop.signal,
    rediscover: (checkoutHead: CheckoutSourceHead) =>
      loadConfig({ ...configOptions(values.config, io), role: 'agent-worker', checkoutHead }),
  };
  const running = await startAgentWorker(config, options);
  // A refused token (revoked, another protocol) ends the worker with the reason, and a non-zero exit.
  const ended = await Promise.race([stopAsked, running.ended]);
  if (typeof ended === 'string') {
    await running.stop(ended);
    return 0;
  }
  await running.stop(`the control plane refused this worker`);
  io.stderr.write(`driftgate worker: ${ended.message}\n`);
  return 1;
}
