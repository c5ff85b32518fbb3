import type { LeaderLease } from '../ports/leader-lease.js';
import { startLeaderLease } from '../adapters/store/postgres/leader-lease.js';
import { sqliteStorePath } from '../adapters/store/open-store.js';
import { takeSqliteServeLease } from '../adapters/store/sqlite/sqlite-serve-lease.js';
import type { DriftgateConfig, StoreConfig } from '../config/schema.js';
import { errorMessage } from '../domain/errors.js';
import type { Logger } from '../logging/logger.js';

/** The advisory lock key of `serve` on a shared store ("drft"). */
export const SERVE_LEASE_KEY = 0x64726674;

/**
 * Several `serve`s on one Postgres store: all of them answer Slack, GitHub and the CLI, and exactly one,
 * the holder of this lease, runs the schedule, delivers the outbox (every message once), escalates,
 * keeps retention and recovers what a dead process left. A standby takes the lease at its next check
 * once the leader's connection is gone (a kill closes it at once); `onLead` runs each time it is taken.
 */
export async function startServeLease(
  store: Extract<StoreConfig, { type: 'postgres' }>,
  logger: Logger,
  options: { checkMs?: number; onLead: () => void },
): Promise<LeaderLease> {
  const lease = startLeaderLease({
    url: store.url,
    key: SERVE_LEASE_KEY,
    ...(options.checkMs ? { checkMs: options.checkMs } : {}),
    onChange: (leader) => {
      if (leader) {
        logger.info('leading: this serve runs the schedule and delivers the outbox');
        options.onLead();
      } else logger.error('lost the lead (connection to Postgres lost): schedule and outbox paused until it is back');
    },
    onError: (err) => logger.warn({ err: errorMessage(err) }, 'store lease: Postgres connection'),
  });
  if (!(await lease.firstAttempt))
    logger.info('standby: another serve leads on this store; this one answers requests and takes over when it stops');
  return lease;
}

/**
 * One `serve` on a SQLite store: there is no standby (each would run the schedule on its own), so a second
 * start is refused with who holds the store (ServeLeaseHeldError). One-shot commands take no lease.
 */
export function takeSqliteLease(
  config: Pick<DriftgateConfig, 'dataDir'>,
  logger: Logger,
  options: { ttlMs?: number },
): LeaderLease {
  return takeSqliteServeLease({
    path: sqliteStorePath(config.dataDir),
    ...(options.ttlMs ? { ttlMs: options.ttlMs } : {}),
    onLost: (holder) =>
      logger.error(
        holder ? { holder: { host: holder.host, pid: holder.pid, since: holder.since } } : {},
        'lost the store lease (not renewed in time): this serve no longer runs the schedule or delivers the outbox; restart it',
      ),
    onError: (err) => logger.warn({ err: errorMessage(err) }, 'store lease: could not renew it'),
  });
}
