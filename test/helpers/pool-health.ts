import type { PoolHealth } from '../../src/domain/pool/pool-health.js';

/** `prod`: three jobs waiting, no worker for 5 minutes before `now`. */
export function unservedProd(now: Date): PoolHealth {
  return {
    pool: 'prod',
    liveWorkers: 0,
    capacity: 0,
    waiting: 3,
    active: 0,
    oldestWaitingSeconds: 420,
    unservedSince: new Date(now.getTime() - 5 * 60_000),
  };
}

/** `nonprod`: two live workers running four jobs, one waiting. */
export const SERVED_NONPROD: PoolHealth = {
  pool: 'nonprod',
  liveWorkers: 2,
  capacity: 6,
  waiting: 1,
  active: 4,
  oldestWaitingSeconds: 12,
};
