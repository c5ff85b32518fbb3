import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresAgentOps } from '../../../src/adapters/store/postgres/agent-ops.js';
import { openPostgresWorkerRegistry } from '../../../src/adapters/store/postgres/worker-registry.js';
import { configuredPools } from '../../../src/domain/pool/configured-pools.js';
import type { AgentOpStore } from '../../../src/ports/agent-ops.js';
import type { WorkerRegistry } from '../../../src/ports/worker-registry.js';
import { createPoolStatus } from '../../../src/services/pools/pool-status.js';
import { usePostgres } from '../../helpers/postgres.js';

const postgres = usePostgres();
const opened: (AgentOpStore | WorkerRegistry)[] = [];
afterEach(async () => {
  for (const item of opened.splice(0)) await item.close();
});

async function openBoth(url: string) {
  const queue = await openPostgresAgentOps({ url });
  const registry = await openPostgresWorkerRegistry({ url });
  opened.push(queue, registry);
  return { queue, registry };
}

/** A plan op of the agent API, queued for a worker of `pool`. */
const plan = (queue: AgentOpStore, pool: string, stack: string) =>
  queue.enqueue({ id: randomUUID(), pool, stack, kind: 'plan', request: {}, maxAttempts: 3 });

describe('pool status', () => {
  it('says a pool with queued checks and no worker is unserved, and counts the live workers of another', async () => {
    const url = await postgres.createDatabase();
    const { queue, registry } = await openBoth(url);
    const startedAt = new Date();
    await registry.beat({ id: 'n1', pool: 'nonprod', host: 'h1', pid: 1, concurrency: 3, running: 0, startedAt });
    await registry.beat({ id: 'n2', pool: 'nonprod', host: 'h2', pid: 2, concurrency: 2, running: 1, startedAt });
    await plan(queue, 'prod', 'prod/site');
    await plan(queue, 'prod', 'prod/db');

    const status = createPoolStatus({
      registry,
      queue,
      pools: configuredPools([{ pool: 'prod' }, { pool: 'nonprod' }, { pool: 'prod' }]),
      now: () => new Date(),
      staleAfterMs: 30_000,
    });
    const health = await status();
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
