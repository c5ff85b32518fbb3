import { openPgBossQueue } from '../adapters/queue/pg-boss-queue.js';
import type { DriftgateConfig } from '../config/schema.js';
import { ConfigError } from '../domain/errors.js';
import type { Logger } from '../logging/logger.js';
import type { JobQueue } from '../ports/job-queue.js';

/** A margin over terraform's own timeouts, for init, the checkout and the artifact store. */
const MARGIN_SECONDS = 120;

/**
 * The job queue of `runners: workers`, in the store's Postgres. The control plane and the workers open it
 * with the same limits (whichever creates a queue first sets them): a check may wait for its stack's lock
 * and then plan, an apply may wait, apply and plan again to verify.
 */
export async function openQueueFor(
  config: DriftgateConfig,
  logger: Logger,
  applicationName: string,
): Promise<JobQueue> {
  if (config.store?.type !== 'postgres')
    throw new ConfigError(
      [{ path: 'store.type', message: 'the job queue of runners: {type: workers} lives in the Postgres store' }],
      config.file,
    );
  const { plan, apply } = config.terraform.timeouts;
  const seconds = (ms: number) => Math.ceil(ms / 1000) + MARGIN_SECONDS;
  return openPgBossQueue({
    url: config.store.url,
    poolSize: 4,
    maxRunSeconds: { check: seconds(2 * plan), apply: seconds(plan + apply + plan), codify: seconds(plan) },
    onError: (err) => logger.warn({ err: err.message }, 'job queue error (retried)'),
    applicationName,
  });
}
