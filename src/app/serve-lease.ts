import { startLeaderLease, type LeaderLease } from '../adapters/postgres/leader-lease.js';
import type { StoreConfig } from '../config/schema.js';
import { errorMessage } from '../domain/errors.js';
import type { Logger } from '../logging/logger.js';

/** The advisory lock key of `serve` on a shared store ("drft"). */
export const SERVE_LEASE_KEY = 0x64726674;

export class ServeAlreadyRunningError extends Error {}

/**
 * One `serve` per Postgres store: two would both run the schedule and both deliver the Slack outbox
 * (every message twice). The second one stops at start, saying so. Several replicas sharing the work is
 * the scale-out mode's control plane, not in this version.
 */
export async function takeServeLease(
  store: Extract<StoreConfig, { type: 'postgres' }>,
  logger: Logger,
): Promise<LeaderLease> {
  const lease = startLeaderLease({
    url: store.url,
    key: SERVE_LEASE_KEY,
    onChange: (leader) => {
      if (leader) logger.info('holding the store lease: the only serve on this store');
      else logger.error('lost the store lease (connection to Postgres lost); taking it again when it is back');
    },
    onError: (err) => logger.warn({ err: errorMessage(err) }, 'store lease: Postgres connection'),
  });
  if (await lease.firstAttempt) return lease;
  await lease.stop();
  throw new ServeAlreadyRunningError(
    'another driftgate serve is running on this store (store.url): one serve per store in this version; stop it first',
  );
}
