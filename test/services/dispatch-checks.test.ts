import { afterEach, describe, expect, it } from 'vitest';
import { openPgBossQueue } from '../../src/adapters/queue/pg-boss-queue.js';
import type { JobQueue, TakenJob } from '../../src/ports/job-queue.js';
import { storeArtifact } from '../../src/services/artifacts.js';
import { createCheckDispatcher } from '../../src/services/dispatch-checks.js';
import { noChangesAnalysis } from '../../src/domain/plan/analyze.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { usePostgres } from '../helpers/postgres.js';
import type { Store } from '../../src/ports/store.js';

const postgres = usePostgres();
const NETWORK = 'resource "terraform_data" "vpc" {\n  input = "10.0.0.0/16"\n}\n';
let app: TestApp | undefined;
let queue: JobQueue | undefined;
afterEach(async () => {
  await queue?.stop(1000);
  await app?.close();
  app = queue = undefined;
});

/**
 * The control plane's scheduler with workers: a real queue, the real store; the test takes the queued job
 * as a worker would, and records what a worker's check records.
 */
async function world(options: { worker: boolean } = { worker: true }) {
  app = await makeTestApp({ stacks: { 'prod/network': NETWORK }, stackSettings: { 'prod/network': { pool: 'prod' } } });
  const jobs = await openPgBossQueue({
    url: await postgres.createDatabase(),
    maxRunSeconds: { check: 120, apply: 120, codify: 120 },
    onError: () => {},
  });
  queue = jobs;
  const { context } = app;
  const runReads = countingRunReads(context.store);
  const dispatcher = createCheckDispatcher({
    ...context.deps,
    store: runReads.store,
    stacks: context.config.stacks,
    queue,
    active: () => true,
    waitLimitMs: 60_000,
    pollMs: 20,
  });
  const taken: TakenJob[] = [];
  const startWorker = () =>
    jobs.work('prod', ['check'], 1, async (job) => {
      taken.push(job);
    });
  if (options.worker) await startWorker();
  return { context, dispatcher, taken, startWorker, runReads: runReads.count };
}

/** The real store, counting how often runs are read (a wait for a worker's result reads them). */
function countingRunReads(store: Store) {
  let count = 0;
  const counted = new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      if (key !== 'listRuns') return value.bind(target);
      return (...args: unknown[]) => {
        count++;
        return value.apply(target, args);
      };
    },
  });
  return { store: counted, count: () => count };
}

describe('checks dispatched to workers', () => {
  it('queues the check on the stack’s pool and answers with the run the worker recorded, even once it moved on', async () => {
    const { context, dispatcher, taken } = await world();
    const { store } = context;
    // An earlier check's run is not this request's answer.
    const earlier = await store.createRun({ stack: 'prod/network', trigger: 'schedule' });
    await store.transition(earlier.id, 'planning', 'no_changes');

    const answer = dispatcher.request('prod/network', 'manual');
    await expect.poll(() => taken.length, { timeout: 30_000 }).toBe(1);
    expect(taken[0]!.job).toEqual({ kind: 'check', stack: 'prod/network', trigger: 'manual' });
    // The worker's check: drift, stored analysis, and an automatic apply that took it on before anyone looked.
    const run = await store.createRun({ stack: 'prod/network', trigger: 'manual' });
    await storeArtifact(
      context.deps,
      run.id,
      'analysis',
      JSON.stringify({ ...noChangesAnalysis('1.11.0'), hasChanges: true }),
    );
    await store.transition(run.id, 'planning', 'drifted', { kind: 'drift', fingerprint: 'f1' });
    await store.transition(run.id, 'drifted', 'applying');
    const outcome = await answer;
    expect(outcome).toMatchObject({ stack: 'prod/network', status: 'drifted', run: { id: run.id, state: 'applying' } });
  });

  it('answers a blocked stack at once, queuing nothing', async () => {
    const { context, dispatcher, taken } = await world();
    await context.store.upsertStack('prod/network');
    await context.store.blockStack('prod/network', 'apply interrupted');
    expect(await dispatcher.request('prod/network')).toEqual({
      stack: 'prod/network',
      status: 'blocked',
      reason: 'apply interrupted',
    });
    expect(taken).toEqual([]);
  });

  it('queues a check whose outcome nobody waits for, and resolves with no worker and no look at the runs', async () => {
    const { context, dispatcher, taken, startWorker, runReads } = await world({ worker: false });
    // A blocked stack's check is queued too: the worker's check says it is blocked.
    await context.store.upsertStack('prod/network');
    await context.store.blockStack('prod/network', 'apply interrupted');
    await dispatcher.queue('prod/network', 'event');
    expect(runReads()).toBe(0);
    await expect(dispatcher.queue('prod/nowhere', 'event')).rejects.toThrow('unknown stack prod/nowhere');

    await startWorker();
    await expect.poll(() => taken.length, { timeout: 30_000 }).toBe(1);
    expect(taken[0]!.job).toEqual({ kind: 'check', stack: 'prod/network', trigger: 'event' });
    expect(runReads()).toBe(0);
  });
});
