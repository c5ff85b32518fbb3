import { afterEach, describe, expect, it } from 'vitest';
import { openPgBossQueue } from '../../../src/adapters/queue/pg-boss-queue.js';
import type { JobQueue, TakenJob } from '../../../src/ports/job-queue.js';
import { usePostgres } from '../../helpers/postgres.js';

const postgres = usePostgres();
const opened: JobQueue[] = [];
afterEach(async () => {
  for (const queue of opened.splice(0)) await queue.stop(1000);
});

async function open(url: string): Promise<JobQueue> {
  const errors: Error[] = [];
  const queue = await openPgBossQueue({
    url,
    maxRunSeconds: { check: 120, apply: 120, codify: 120 },
    onError: (err) => errors.push(err),
  });
  opened.push(queue);
  return queue;
}

/** Resolves with each job as the handler takes it; the handler holds it until `release` is called. */
function holdingHandler() {
  const taken: TakenJob[] = [];
  const releases: (() => void)[] = [];
  let notify: (() => void) | undefined;
  return {
    taken,
    handler: (job: TakenJob) =>
      new Promise<void>((resolve) => {
        taken.push(job);
        releases.push(resolve);
        notify?.();
      }),
    async next(count: number): Promise<void> {
      while (taken.length < count) await new Promise<void>((resolve) => (notify = resolve));
    },
    releaseAll: () => {
      for (const release of releases.splice(0)) release();
    },
  };
}

describe('the pg-boss job queue', () => {
  it('queues a stack once while a check of it waits, and once more while one runs', async () => {
    const queue = await open(await postgres.createDatabase());
    const first = await queue.enqueue('prod', { kind: 'check', stack: 'prod/site', trigger: 'schedule' });
    expect(first.queued).toBe(true);
    expect(await queue.enqueue('prod', { kind: 'check', stack: 'prod/site', trigger: 'manual' })).toEqual({
      queued: false,
      reason: 'already_queued',
    });
    // Another stack, and the same stack in another pool's queue, are separate.
    expect((await queue.enqueue('prod', { kind: 'check', stack: 'prod/db', trigger: 'schedule' })).queued).toBe(true);

    const worker = holdingHandler();
    await queue.work('prod', ['check'], 2, worker.handler);
    await worker.next(2);
    expect(worker.taken.map((t) => t.job).sort((a, b) => a.stack.localeCompare(b.stack))).toEqual([
      { kind: 'check', stack: 'prod/db', trigger: 'schedule' },
      { kind: 'check', stack: 'prod/site', trigger: 'schedule' },
    ]);
    expect(worker.taken.every((t) => t.retry === 0)).toBe(true);
    // While prod/site's check runs, one more may wait (a change seen during the plan), not two.
    expect((await queue.enqueue('prod', { kind: 'check', stack: 'prod/site', trigger: 'manual' })).queued).toBe(true);
    expect((await queue.enqueue('prod', { kind: 'check', stack: 'prod/site', trigger: 'manual' })).queued).toBe(false);
    worker.releaseAll();
    await worker.next(3);
    expect(worker.taken[2]?.job).toEqual({ kind: 'check', stack: 'prod/site', trigger: 'manual' });
    worker.releaseAll();
  });

  it("gives a pool's jobs only to that pool's workers", async () => {
    const queue = await open(await postgres.createDatabase());
    const prod = holdingHandler();
    const nonprod = holdingHandler();
    await queue.work('prod', ['check', 'apply'], 1, prod.handler);
    await queue.work('nonprod', ['check', 'apply'], 1, nonprod.handler);
    await queue.enqueue('nonprod', { kind: 'check', stack: 'dev/site', trigger: 'schedule' });
    await queue.enqueue('prod', { kind: 'apply', stack: 'prod/site', runId: 'r1', actor: 'U1' });
    await Promise.all([prod.next(1), nonprod.next(1)]);
    expect(prod.taken.map((t) => t.job.stack)).toEqual(['prod/site']);
    expect(nonprod.taken.map((t) => t.job.stack)).toEqual(['dev/site']);
    prod.releaseAll();
    nonprod.releaseAll();
  });

  it('retries a failed check and never a failed apply', async () => {
    const queue = await open(await postgres.createDatabase());
    const seen: TakenJob[] = [];
    let notify: (() => void) | undefined;
    await queue.work('prod', ['check', 'apply'], 2, async (job) => {
      seen.push(job);
      notify?.();
      throw new Error('terraform was not found');
    });
    await queue.enqueue('prod', { kind: 'check', stack: 'prod/site', trigger: 'schedule' });
    await queue.enqueue('prod', { kind: 'apply', stack: 'prod/db', runId: 'r2', actor: 'U1' });
    const checks = () => seen.filter((s) => s.job.kind === 'check').length;
    while (checks() < 3) await new Promise<void>((resolve) => (notify = resolve));
    expect(seen.filter((s) => s.job.kind === 'check').map((s) => s.retry)).toEqual([0, 1, 2]);
    expect(seen.filter((s) => s.job.kind === 'apply').map((s) => s.retry)).toEqual([0]);
    const depth = await queue.depth(['prod']);
    expect(depth.find((d) => d.kind === 'apply')).toMatchObject({ waiting: 0, active: 0 });
  });

  it('refuses a pool name that cannot be a queue, naming the rule', async () => {
    const queue = await open(await postgres.createDatabase());
    await expect(queue.enqueue('Prod EU', { kind: 'check', stack: 's', trigger: 'manual' })).rejects.toThrow(
      'pool "Prod EU" is not a pool name: lowercase letters, digits and dashes',
    );
  });
});
