/** The jobs of one pool, as the queue counts them. */
export interface PoolQueueDepth {
  pool: string;
  /** Jobs waiting for a worker (new, or back after their worker's lease ran out). */
  waiting: number;
  active: number;
  /** Age of the oldest job ready and waiting, when one is. */
  oldestWaitingSeconds?: number;
}

/** A worker's last heartbeat, as the registry keeps it. */
export interface WorkerBeat {
  id: string;
  pool: string;
  host: string;
  pid: number;
  concurrency: number;
  /** Jobs it was running at that heartbeat. */
  running: number;
  startedAt: Date;
  lastSeenAt: Date;
}

export interface PoolHealth {
  pool: string;
  liveWorkers: number;
  /** Jobs the live workers can run at once. */
  capacity: number;
  waiting: number;
  active: number;
  oldestWaitingSeconds?: number;
  /**
   * Since when work has waited with no live worker to take it (the last heartbeat of the pool's last
   * worker, or the oldest waiting job's age when no worker was ever seen); undefined when it is served.
   */
  unservedSince?: Date;
}

/** A worker counts as live while its last heartbeat is younger than `staleAfterMs`. */
export function isLive(worker: WorkerBeat, now: Date, staleAfterMs: number): boolean {
  return now.getTime() - worker.lastSeenAt.getTime() < staleAfterMs;
}

/** Each pool's workers and queue, for `/drift status`, the App Home, `/metrics` and `driftgate workers`. */
export function poolHealth(
  pools: readonly string[],
  workers: readonly WorkerBeat[],
  depths: readonly PoolQueueDepth[],
  now: Date,
  staleAfterMs: number,
): PoolHealth[] {
  return pools.map((pool) => {
    const mine = workers.filter((w) => w.pool === pool);
    const live = mine.filter((w) => isLive(w, now, staleAfterMs));
    const queued = depths.filter((d) => d.pool === pool);
    const waiting = queued.reduce((sum, d) => sum + d.waiting, 0);
    const ages = queued.flatMap((d) => (d.oldestWaitingSeconds === undefined ? [] : [d.oldestWaitingSeconds]));
    const oldestWaitingSeconds = ages.length ? Math.max(...ages) : undefined;
    const health: PoolHealth = {
      pool,
      liveWorkers: live.length,
      capacity: live.reduce((sum, w) => sum + w.concurrency, 0),
      waiting,
      active: queued.reduce((sum, d) => sum + d.active, 0),
      ...(oldestWaitingSeconds !== undefined ? { oldestWaitingSeconds } : {}),
    };
    if (waiting === 0 || live.length > 0) return health;
    const lastSeen = Math.max(...mine.map((w) => w.lastSeenAt.getTime()));
    const since = Number.isFinite(lastSeen) ? lastSeen : now.getTime() - (oldestWaitingSeconds ?? 0) * 1000;
    return { ...health, unservedSince: new Date(since) };
  });
}

/** Pools whose work has waited with no live worker for at least `afterMs`: what Slack is told about. */
export function unservedPools(health: readonly PoolHealth[], now: Date, afterMs: number): PoolHealth[] {
  return health.filter((h) => h.unservedSince && now.getTime() - h.unservedSince.getTime() >= afterMs);
}
