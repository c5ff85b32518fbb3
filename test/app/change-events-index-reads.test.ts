/**
 * How often change events read the resource index from the store, a real SQLite file whose reads are
 * counted (and, for a slow store, held until the test lets them go): once at start in a process that runs
 * the checks (the check hooks' load is that read), and never two refreshes at a time, however slow one is.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startChangeEvents, startChangeEventsWith } from '../../src/app/change-events.js';
import { ChangeEventsConfig } from '../../src/config/schema.js';
import { createMetrics } from '../../src/metrics/registry.js';
import type { RunStore } from '../../src/ports/store.js';
import { useTempStore } from '../adapters/store/temp-store.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';

const STACK = 'prod/assets';
const BUCKET = 'acme-assets';
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const NEVER = { setTimeout: () => 0, clearTimeout: () => {} };

type IndexRead = Parameters<RunStore['listResourceIndexes']>[0];

/** The store as it is, its index reads counted; while `hold` is set, each read waits for it first. */
function countedReads<S extends RunStore>(store: S) {
  const reads: IndexRead[] = [];
  const state = { inFlight: 0, most: 0, hold: undefined as Promise<void> | undefined };
  const counted = new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      if (key !== 'listResourceIndexes') return value.bind(target);
      return async (query?: IndexRead) => {
        reads.push(query);
        state.most = Math.max(state.most, ++state.inFlight);
        try {
          await state.hold;
          return await target.listResourceIndexes(query);
        } finally {
          state.inFlight--;
        }
      };
    },
  });
  return { store: counted, reads, state };
}

const saveAssets = (store: RunStore) =>
  store.saveResourceIndex({
    stack: STACK,
    resources: [{ address: 'aws_s3_bucket.assets', identifiers: [BUCKET, `arn:aws:s3:::${BUCKET}`] }],
  });

const tmp = useTempStore();
let app: TestApp | undefined;
let stop: (() => Promise<void>) | undefined;
/** Answers the held reads: a failing test must not leave its stop waiting for them. */
let answer = () => {};
afterEach(async () => {
  vi.useRealTimers();
  answer();
  await stop?.();
  await app?.close();
  app = stop = undefined;
  answer = () => {};
});

describe('the resource index read by change events', () => {
  it('is read once at start with local runners, then only what was saved since', async () => {
    app = await makeTestApp({
      stacks: { [STACK]: 'resource "terraform_data" "x" {}\n' },
      config: { changeEvents: { secretEnv: 'EVENTS_SECRET', cloudTrail: { lookup: false } } },
    });
    const { context } = app;
    await saveAssets(context.store);
    // A stack since removed from the config: what the store still holds for it matches nothing.
    await context.store.saveResourceIndex({
      stack: 'dev/gone',
      resources: [{ address: 'aws_sqs_queue.jobs', identifiers: ['jobs'] }],
    });
    const newest = Math.max(...(await context.store.listResourceIndexes()).map((e) => e.updatedAt.getTime()));
    const counted = countedReads(context.store);
    const metrics = createMetrics();
    const running = await startChangeEvents(
      { config: context.config, deps: { ...context.deps, store: counted.store } },
      metrics,
      { EVENTS_SECRET: 'secret-of-the-reads-test-0123456789' },
      async () => undefined,
      { indexRefreshMs: 20 },
    );
    stop = () => running!.stop();
    expect(counted.reads).toEqual([undefined]);
    expect((await metrics.changeEventsIndexed.get()).values[0]?.value).toBe(1);

    // The follower goes on from the newest save the start read saw.
    await expect.poll(() => counted.reads.length).toBeGreaterThanOrEqual(2);
    expect(counted.reads[1]).toEqual({ updatedSince: new Date(newest - 60_000) });
  });

  it('never starts a refresh while one is under way, and stopping waits for that one and starts none', async () => {
    const store = tmp.open();
    await saveAssets(store);
    const counted = countedReads(store);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const running = await startChangeEventsWith({
      config: ChangeEventsConfig.parse({ cloudTrail: { lookup: false } }),
      env: {},
      deps: { store: counted.store, logger: quiet, now: () => new Date() },
      metrics: createMetrics(),
      requestCheck: async () => undefined,
      stacks: () => new Set([STACK]),
      timer: NEVER,
      indexRefreshMs: 10,
    });
    stop = () => running.stop();
    expect(counted.reads).toHaveLength(1);

    // The store answers the next read only when the test says.
    counted.state.hold = new Promise<void>((resolve) => {
      answer = resolve;
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(counted.reads).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(counted.reads).toHaveLength(2);
    expect(counted.state.most).toBe(1);

    let stopped = false;
    const stopping = running.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(stopped).toBe(false);
    answer();
    await stopping;
    expect(counted.state.inFlight).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(counted.reads).toHaveLength(2);
  });
});
