import { afterEach, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../../src/domain/events.js';
import { relayBus } from '../../src/services/relay-bus.js';
import { workPoolJob, type PoolJobDeps } from '../../src/services/work-pool-job.js';
import type { RelayedEvent } from '../../src/domain/relayed-event.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';

const NETWORK = 'resource "terraform_data" "vpc" {\n  input = "10.0.0.0/16"\n}\n';
let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A worker of `pool` over the real composition root, its relayed events kept. */
async function workerOf(pool: string) {
  app = await makeTestApp({ stacks: { 'prod/network': NETWORK }, stackSettings: { 'prod/network': { pool: 'prod' } } });
  const relayed: RelayedEvent[] = [];
  const { context } = app;
  const deps: PoolJobDeps = {
    ...context.deps,
    bus: relayBus(
      async (event) => void relayed.push(event),
      (err: unknown, event: DomainEvent) => {
        throw new Error(`${event.type}: ${String(err)}`);
      },
    ),
    pool,
    stack: context.stack,
    requestCheck: () => undefined,
  };
  return { deps, relayed, context };
}

const taken = (job: Parameters<typeof workPoolJob>[1]['job']) => ({
  id: 'job-1',
  job,
  retry: 0,
  signal: new AbortController().signal,
});

describe('a job its worker cannot run (the configs disagree)', () => {
  it('plans nothing for a stack the worker does not have, and ends an apply on the wrong pool with the reason', async () => {
    const { deps, relayed, context } = await workerOf('nonprod');
    await workPoolJob(deps, taken({ kind: 'check', stack: 'prod/gone', trigger: 'schedule' }));
    expect(await context.store.listRuns({ stack: 'prod/gone' })).toEqual([]);
    expect(app!.logs.some((l) => l.includes("stack prod/gone is not in this worker's config (pool nonprod)"))).toBe(
      true,
    );

    const run = await context.store.createRun({ stack: 'prod/network', trigger: 'manual' });
    await context.store.transition(run.id, 'planning', 'drifted', { kind: 'drift', fingerprint: 'f' });
    await context.store.transition(run.id, 'drifted', 'approved');
    await workPoolJob(deps, taken({ kind: 'apply', stack: 'prod/network', runId: run.id, actor: 'U0LEAD1' }));
    const ended = await context.store.getRun(run.id);
    expect(ended?.state).toBe('errored');
    expect(ended?.error).toContain(
      "stack prod/network is in pool prod in this worker's config, but its job came on pool nonprod: the worker's config and the control plane's disagree (stacks[].pool)",
    );
    expect(relayed.map((e) => e.type)).toEqual(['apply_not_started']);
  });

  it("runs a check of its own pool's stack and relays the outcome", async () => {
    const { deps, relayed, context } = await workerOf('prod');
    await workPoolJob(deps, taken({ kind: 'check', stack: 'prod/network', trigger: 'schedule' }));
    const [run] = await context.store.listRuns({ stack: 'prod/network' });
    expect(run?.state).toBe('drifted');
    expect(relayed).toEqual([{ type: 'drift_detected', stack: 'prod/network', runId: run!.id }]);
  });
});
