import { afterEach, describe, expect, it } from 'vitest';
import { openPgBossQueue } from '../../src/adapters/queue/pg-boss-queue.js';
import { openPostgresWorkerRegistry } from '../../src/adapters/store/postgres/worker-registry.js';
import { configuredPools } from '../../src/domain/pool/configured-pools.js';
import type { PoolHealth } from '../../src/domain/pool/pool-health.js';
import type { JobQueue } from '../../src/ports/job-queue.js';
import type { WorkerRegistry } from '../../src/ports/worker-registry.js';
import { createPoolStatus } from '../../src/services/pool-status.js';
import { usePostgres } from '../helpers/postgres.js';

const postgres = usePostgres();
const opened: (JobQueue | WorkerRegistry)[] = [];
afterEach(async () => {
  for (const item of opened.splice(0)) await ('stop' in item ? item.stop(1000) : item.close());
});

async function openBoth(url: string) {
  const queue = await openPgBossQueue({
    url,
    maxRunSeconds: { check: 120, apply: 120, codify: 120 },
    // Queue depths are counted by pg-boss's monitoring pass: every second here.
    superviseSeconds: 1,
    onError: () => {},
  });
  const registry = await openPostgresWorkerRegistry({ url });
  opened.push(queue, registry);
  return { queue, registry };
}

/** Asks until `done` holds: the queue's counts appear at its next monitoring pass. */
async function until(read: () => Promise<PoolHealth[]>, done: (h: PoolHealth[]) => boolean): Promise<PoolHealth[]> {
  for (;;) {
    const health = await read();
    if (done(health)) return health;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('pool status', () => {
  it('says a pool with queued checks and no worker is unserved, and counts the live workers of another', async () => {
    const url = await postgres.createDatabase();
    const { queue, registry } = await openBoth(url);
    const startedAt = new Date();
    await registry.beat({ id: 'n1', pool: 'nonprod', host: 'h1', pid: 1, concurrency: 3, running: 0, startedAt });
    await registry.beat({ id: 'n2', pool: 'nonprod', host: 'h2', pid: 2, concurrency: 2, running: 1, startedAt });
    await queue.enqueue('prod', { kind: 'check', stack: 'prod/site', trigger: 'schedule' });
    await queue.enqueue('prod', { kind: 'check', stack: 'prod/db', trigger: 'schedule' });

    const status = createPoolStatus({
      registry,
      queue,
      pools: configuredPools([{ pool: 'prod' }, { pool: 'nonprod' }, { pool: 'prod' }]),
      now: () => new Date(),
      staleAfterMs: 30_000,
    });
    const health = await until(status, (h) => h.some((p) => p.pool === 'prod' && p.waiting === 2));
    const prod = health.find((h) => h.pool === 'prod')!;
    expect(prod).toMatchObject({ liveWorkers: 0, capacity: 0, waiting: 2, active: 0 });
    // No worker of prod was ever seen: unserved since its oldest job was queued.
    expect(prod.unservedSince).toBeInstanceOf(Date);
    expect(prod.unservedSince!.getTime()).toBeGreaterThanOrEqual(startedAt.getTime() - 2000);
    expect(health.find((h) => h.pool === 'nonprod')).toEqual({
      pool: 'nonprod',
      liveWorkers: 2,
      capacity: 5,
      waiting: 0,
      active: 0,
    });
  });

  it('shows the pool of a worker no stack names, beside the configured ones', async () => {
    const url = await postgres.createDatabase();
    const { queue, registry } = await openBoth(url);
    await registry.beat({
      id: 'w',
      pool: 'prdo',
      host: 'h',
      pid: 1,
      concurrency: 1,
      running: 0,
      startedAt: new Date(),
    });
    const status = createPoolStatus({ registry, queue, pools: ['prod'], now: () => new Date(), staleAfterMs: 30_000 });
    expect((await status()).map((h) => [h.pool, h.liveWorkers])).toEqual([
      ['prdo', 1],
      ['prod', 0],
    ]);
  });
});
