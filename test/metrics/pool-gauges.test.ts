import { describe, expect, it } from 'vitest';
import type { PoolHealth } from '../../src/domain/pool/pool-health.js';
import { createMetrics } from '../../src/metrics/registry.js';
import { SERVED_NONPROD, unservedProd } from '../helpers/pool-health.js';

const prod = unservedProd(new Date('2026-12-04T10:00:00Z'));
const nonprod: PoolHealth = { ...SERVED_NONPROD, waiting: 0, oldestWaitingSeconds: 0 };

const sources = (pools: () => Promise<PoolHealth[]>) => ({
  driftedStacks: async () => 0,
  outboxPending: async () => 0,
  pools,
});

describe('pool gauges on /metrics', () => {
  it("read each pool's workers, queue and oldest waiting job at the scrape, once for the four gauges", async () => {
    let reads = 0;
    let health = [prod, nonprod];
    const metrics = createMetrics(
      sources(async () => {
        reads += 1;
        return health;
      }),
    );
    const text = await metrics.registry.metrics();
    expect(reads).toBe(1);
    for (const line of [
      'driftgate_pool_workers{pool="prod"} 0',
      'driftgate_pool_workers{pool="nonprod"} 2',
      'driftgate_pool_jobs_waiting{pool="prod"} 3',
      'driftgate_pool_jobs_active{pool="nonprod"} 4',
      'driftgate_pool_oldest_waiting_seconds{pool="prod"} 420',
      'driftgate_pool_oldest_waiting_seconds{pool="nonprod"} 0',
    ])
      expect(text.split('\n')).toContain(line);

    // The next scrape reads again, and a pool gone from the answer leaves no series behind.
    health = [{ ...prod, liveWorkers: 1, capacity: 2, waiting: 0, unservedSince: undefined }];
    const next = await metrics.registry.metrics();
    expect(reads).toBe(2);
    expect(next.split('\n')).toContain('driftgate_pool_workers{pool="prod"} 1');
    expect(next).not.toContain('pool="nonprod"');
  });

  it('has no pool series without pools (local runners)', async () => {
    const metrics = createMetrics({ driftedStacks: async () => 0, outboxPending: async () => 0 });
    expect(await metrics.registry.metrics()).not.toMatch(/driftgate_pool_\w+\{/);
  });
});

describe('store gauges on /metrics', () => {
  it('are absent until the store is read, then read it at each scrape (no 0 nor lead nobody read)', async () => {
    const metrics = createMetrics();
    const before = await metrics.registry.metrics();
    for (const name of ['driftgate_drifted_stacks', 'driftgate_outbox_pending', 'driftgate_leader'])
      expect(before).not.toContain(name);

    let drifted = 2;
    metrics.readGaugesFrom({ driftedStacks: async () => drifted, outboxPending: async () => 5, leading: () => false });
    const wired = (await metrics.registry.metrics()).split('\n');
    expect(wired).toContain('driftgate_drifted_stacks 2');
    expect(wired).toContain('driftgate_outbox_pending 5');
    expect(wired).toContain('driftgate_leader 0');

    // Wired again (serve adds the pools once they start): each gauge is registered once, and reads the new sources.
    drifted = 3;
    metrics.readGaugesFrom({ driftedStacks: async () => drifted, outboxPending: async () => 0 });
    const again = (await metrics.registry.metrics()).split('\n');
    expect(again.filter((l) => l.startsWith('driftgate_drifted_stacks '))).toEqual(['driftgate_drifted_stacks 3']);
    expect(again).toContain('driftgate_leader 1');
  });
});
