/**
 * The intake of change events in a process that runs no checks (a control plane with workers), against a
 * real SQLite store and the real push door on loopback: its index follows what other processes' plans
 * saved in the store, a due check finds the matched changes kept in the store before it is asked for, and
 * stopping waits for that write but not for the check.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startChangeEventsWith } from '../../src/app/change-events.js';
import { ChangeEventsConfig } from '../../src/config/schema.js';
import type { DebounceTimer } from '../../src/domain/change-events/debounce.js';
import { type HttpServer, startHttpServer } from '../../src/http/server.js';
import { createMetrics } from '../../src/metrics/registry.js';
import type { RunStore } from '../../src/ports/store.js';
import { manualClock, useTempStore } from '../adapters/store/temp-store.js';
import { postChangeEvent, tagEvent } from '../helpers/change-events-serve.js';
import { waitFor } from '../helpers/process-wait.js';
import type { Logger } from '../../src/ports/logger.js';

const SECRET = 'secret-of-the-intake-test-0123456789';
const STACK = 'prod/assets';
const BUCKET = 'acme-assets';
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** A debounce timer fired by the test. */
function handTimer() {
  const due: (() => void)[] = [];
  const timer: DebounceTimer = {
    setTimeout: (fn) => {
      due.push(fn);
      return due.length;
    },
    clearTimeout: () => {},
  };
  return {
    timer,
    fire: () => {
      for (const fn of due.splice(0)) fn();
    },
  };
}

const tmp = useTempStore();
let server: HttpServer | undefined;
let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  await server?.close();
  server = stop = undefined;
});

/** A store whose index holds the stack's bucket: an event on it matches. */
async function storeWithBucketIndexed(): Promise<RunStore> {
  const store = tmp.open();
  await store.saveResourceIndex({
    stack: STACK,
    resources: [{ address: 'aws_s3_bucket.assets', identifiers: [BUCKET, `arn:aws:s3:::${BUCKET}`] }],
  });
  return store;
}

async function startIntake(
  store: RunStore,
  requestCheck: (stack: string) => Promise<unknown>,
  options: { logger?: Logger; now?: () => Date; stacks?: string[] } = {},
) {
  const { logger = quiet, now = () => new Date(), stacks = [STACK, 'dev/app'] } = options;
  const configured = new Set(stacks);
  const metrics = createMetrics();
  const hand = handTimer();
  const running = await startChangeEventsWith({
    config: ChangeEventsConfig.parse({ secretEnv: 'EVENTS_SECRET', cloudTrail: { lookup: false } }),
    env: { EVENTS_SECRET: SECRET },
    deps: { store, logger, now },
    metrics,
    requestCheck,
    stacks: () => configured,
    timer: hand.timer,
    indexRefreshMs: 50,
  });
  stop = () => running.stop();
  server = await startHttpServer({
    port: 0,
    host: '127.0.0.1',
    checks: { live: () => true, ready: () => ({ ok: true }) },
    mounts: running.mounts,
  });
  const indexed = async () => (await metrics.changeEventsIndexed.get()).values[0]?.value ?? 0;
  return { running, hand, indexed, metrics, base: `http://127.0.0.1:${server.port}` };
}

describe('change events in a process that runs no checks', () => {
  it('matches against what another process indexed since, and keeps the changes before asking for the check', async () => {
    // Two workers: one indexes another stack first; the other's clock is 55 s behind, so its row is
    // older than the newest the intake has read, and still reaches it (the reads overlap a minute).
    const other = tmp.open();
    const workerClock = manualClock(Date.now() - 55_000);
    const worker = tmp.open({ now: workerClock.now });
    const controlPlane = tmp.open();
    const asked: { stack: string; waiting: number }[] = [];
    const intake = await startIntake(controlPlane, async (stack) => {
      asked.push({ stack, waiting: (await worker.readPendingChanges(stack)).changes.length });
    });
    expect(await intake.indexed()).toBe(0);
    const event = tagEvent(BUCKET, 'config/app.json', 'alice-console', '0000a11c-0001');
    expect((await postChangeEvent(intake.base, event, SECRET)).status).toBe(202);
    intake.hand.fire();
    expect(asked).toEqual([]);
    await other.saveResourceIndex({
      stack: 'dev/app',
      resources: [{ address: 'aws_sqs_queue.jobs', identifiers: ['jobs'] }],
    });
    await waitFor('the intake to read dev/app', async () => ((await intake.indexed()) === 1 ? true : undefined));

    // The worker's first check of the stack indexes it.
    await worker.saveResourceIndex({
      stack: STACK,
      serial: 1,
      lineage: 'l',
      resources: [
        { address: 'aws_s3_bucket.assets', identifiers: [BUCKET, `arn:aws:s3:::${BUCKET}`] },
        {
          address: 'aws_s3_object.config',
          identifiers: [`${BUCKET}/config/app.json`, `arn:aws:s3:::${BUCKET}/config/app.json`],
        },
      ],
    });
    await waitFor('the intake to read the index', async () => ((await intake.indexed()) === 3 ? true : undefined));
    for (const id of ['0000a11c-0002', '0000a11c-0003'])
      expect(
        (await postChangeEvent(intake.base, tagEvent(BUCKET, 'config/app.json', 'alice-console', id), SECRET)).status,
      ).toBe(202);
    intake.hand.fire();
    await waitFor('the check to be asked for', () => (asked.length ? true : undefined));
    // One check for both clicks, and both changes were in the store when it was asked for.
    expect(asked).toEqual([{ stack: STACK, waiting: 2 }]);

    // A later save (a new object) arrives by the incremental read.
    workerClock.advance(5_000);
    await worker.saveResourceIndex({
      stack: STACK,
      serial: 2,
      lineage: 'l',
      resources: [{ address: 'aws_s3_object.readme', identifiers: [`${BUCKET}/README.md`] }],
    });
    await waitFor('the intake to read the new state', async () => ((await intake.indexed()) === 2 ? true : undefined));
  });

  it('stops without waiting for a check it asked for (the runners stop those), the changes kept', async () => {
    const store = await storeWithBucketIndexed();
    let asked = 0;
    const intake = await startIntake(store, () => {
      asked++;
      return new Promise(() => {});
    });
    const event = tagEvent(BUCKET, 'config/app.json', 'alice-console', '0000a11c-0004');
    expect((await postChangeEvent(intake.base, event, SECRET)).status).toBe(202);
    intake.hand.fire();
    await waitFor('the check to be asked for', () => (asked ? true : undefined));
    await intake.running.stop();
    expect((await store.readPendingChanges(STACK)).changes.map((c) => c.eventId)).toEqual(['0000a11c-0004']);
  });

  it('keeps the changes of a window still open when it stops: a deploy loses none', async () => {
    const store = await storeWithBucketIndexed();
    let asked = 0;
    const intake = await startIntake(store, async () => {
      asked++;
    });
    const event = tagEvent(BUCKET, 'config/app.json', 'alice-console', '0000a11c-0005');
    expect((await postChangeEvent(intake.base, event, SECRET)).status).toBe(202);
    await intake.running.stop();
    // Kept for the stack's next check; no check is asked of a stopping process.
    expect(asked).toBe(0);
    expect((await store.readPendingChanges(STACK)).changes.map((c) => c.eventId)).toEqual(['0000a11c-0005']);
  });

  it('keeps the first change of a window before answering 202; a later start checks the stack whose window died', async () => {
    const store = await storeWithBucketIndexed();
    const dead = await startIntake(store, async () => {});
    const event = tagEvent(BUCKET, 'config/app.json', 'alice-console', '0000a11c-0006');
    expect((await postChangeEvent(dead.base, event, SECRET)).status).toBe(202);
    expect((await store.readPendingChanges(STACK)).changes.map((c) => c.eventId)).toEqual(['0000a11c-0006']);
    // Killed within its window: the window never closes, nothing more is kept, no check is asked for.
    const killed = dead.running;
    await server?.close();
    // Kept by a process that knew a stack since removed from the config: not this start's to check.
    await store.addPendingChanges('removed/stack', [
      { ...(await store.readPendingChanges(STACK)).changes[0]!, eventId: '0000a11c-0007' },
    ]);

    const like = async (eventId: string) => ({ ...(await store.readPendingChanges(STACK)).changes[0]!, eventId });
    // Kept before this start too, but its stack is checked since (by another replica that started).
    await store.addPendingChanges('prod/checked', [await like('0000a11c-0009')]);

    const asked: string[] = [];
    const next = await startIntake(
      tmp.open(),
      async (stack) => {
        asked.push(stack);
      },
      { stacks: [STACK, 'dev/app', 'prod/checked'] },
    );
    await store.createRun({ stack: 'prod/checked', trigger: 'event' });
    // Kept after this start: the window of a live process, not stranded.
    await store.addPendingChanges('dev/app', [await like('0000a11c-0008')]);
    expect(asked).toEqual([]);
    next.hand.fire();
    await waitFor('the stranded stack to be checked', () => (asked.length ? true : undefined));
    await next.running.stop();
    expect(asked).toEqual([STACK]);
    await killed.stop();
  });

  it('does not keep the first change of a window again when a check answered it meanwhile', async () => {
    const store = await storeWithBucketIndexed();
    let asked = 0;
    const intake = await startIntake(store, async () => {
      asked++;
    });
    const event = tagEvent(BUCKET, 'config/app.json', 'alice-console', '0000a11c-0009');
    expect((await postChangeEvent(intake.base, event, SECRET)).status).toBe(202);
    // A scheduled check of the stack planned, named who from it, and answered it.
    await store.dropPendingChanges(STACK, await store.markPendingChanges(STACK));
    intake.hand.fire();
    await waitFor('the check to be asked for', () => (asked ? true : undefined));
    expect((await store.readPendingChanges(STACK)).changes).toEqual([]);
  });

  it('takes a burst of 10,000 events: one check per matched stack, the newest changes kept, the rest counted', async () => {
    const store = await storeWithBucketIndexed();
    await store.saveResourceIndex({
      stack: 'dev/app',
      resources: [{ address: 'aws_s3_bucket.jobs', identifiers: ['acme-jobs'] }],
    });
    const asked: string[] = [];
    const lines: string[] = [];
    const logger = { ...quiet, info: (_: object, msg?: string) => void lines.push(msg ?? '') };
    // The clock stands still: however long the burst takes here, it is within one minute of the log's.
    const at = new Date();
    const intake = await startIntake(store, async (stack) => void asked.push(stack), { logger, now: () => at });
    // A console deploy of a large change set: most calls on buckets no stack manages, some on two stacks'.
    const bucketOf = (i: number) => (i % 20 === 0 ? BUCKET : i % 20 === 1 ? 'acme-jobs' : `someone-elses-${i}`);
    const id = (i: number) => `0000b057-${String(i).padStart(5, '0')}`;
    const statuses = new Map<number, number>();
    for (let start = 0; start < 10_000; start += 100) {
      await Promise.all(
        Array.from({ length: 100 }, async (_, j) => {
          const i = start + j;
          const response = await postChangeEvent(
            intake.base,
            tagEvent(bucketOf(i), `k${i}`, 'alice-console', id(i)),
            SECRET,
          );
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        }),
      );
    }
    expect([...statuses]).toEqual([[202, 10_000]]);
    intake.hand.fire();
    await waitFor('the checks to be asked for', () => (asked.length === 2 ? true : undefined));
    await intake.running.stop();
    expect(asked.sort()).toEqual(['dev/app', STACK]);
    // Of each stack's 500 changes, the newest 50 wait for its check.
    const kept = (await store.readPendingChanges(STACK)).changes.map((c) => c.eventId);
    expect(kept).toHaveLength(50);
    expect(kept).toContain(id(9980));
    expect((await store.readPendingChanges('dev/app')).changes).toHaveLength(50);
    const unmatched = await store.listUnmatchedChanges({ since: new Date(0), limit: 1000 });
    expect(unmatched.changes.length).toBeLessThanOrEqual(200);
    expect(unmatched.counted).toBe(9000);
    const counted = (await intake.metrics.changeEvents.get()).values;
    const sum = (outcome: string) =>
      counted.filter((v) => v.labels.outcome === outcome).reduce((total, v) => total + v.value, 0);
    expect([sum('matched'), sum('unmatched')]).toEqual([1000, 9000]);
    // One line for the first unmatched event, not 9,000 (the minute has not passed).
    expect(lines.filter((l) => l === 'change event names no resource a stack manages')).toHaveLength(1);
  }, 120_000);

  it('answers 503 when the change of a window could not be kept, and keeps it when the event comes again', async () => {
    const store = await storeWithBucketIndexed();
    let down = true;
    const flaky = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'addPendingChanges' && down)
          return async () => {
            throw new Error('the store is down');
          };
        return Reflect.get(target, property, receiver);
      },
    });
    let asked = 0;
    const intake = await startIntake(flaky, async () => {
      asked++;
    });
    const event = tagEvent(BUCKET, 'config/app.json', 'alice-console', '0000a11c-0010');
    expect((await postChangeEvent(intake.base, event, SECRET)).status).toBe(503);
    down = false;
    // EventBridge sends it again: its window is open, and now its change is kept before the 202.
    expect((await postChangeEvent(intake.base, event, SECRET)).status).toBe(202);
    expect((await store.readPendingChanges(STACK)).changes.map((c) => c.eventId)).toEqual(['0000a11c-0010']);
    intake.hand.fire();
    await waitFor('the check to be asked for', () => (asked ? true : undefined));
    expect(asked).toBe(1);
  });

  it('refuses an event older than maxEventAge (default 1 h) with a 400: no check, nothing kept, counted', async () => {
    const store = await storeWithBucketIndexed();
    const asked: string[] = [];
    const intake = await startIntake(store, async (stack) => void asked.push(stack));
    // A request captured with its secret, sent again a little over an hour later.
    const replayed = tagEvent(BUCKET, 'config/app.json', 'alice-console', '0000a11c-0020');
    replayed.detail.eventTime = new Date(Date.now() - 3_600_000 - 60_000).toISOString();
    const res = await postChangeEvent(intake.base, replayed, SECRET);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { reason: string }).reason).toBe('too_old');
    intake.hand.fire();
    await intake.running.stop();
    expect(asked).toEqual([]);
    expect((await store.readPendingChanges(STACK)).changes).toEqual([]);
    const counted = (await intake.metrics.changeEvents.get()).values.map((v) => [v.labels, v.value]);
    expect(counted).toEqual([[{ outcome: 'refused', reason: 'too_old' }, 1]]);
  });
});
