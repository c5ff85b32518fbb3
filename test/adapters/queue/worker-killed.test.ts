import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { openPgBossQueue } from '../../../src/adapters/queue/pg-boss-queue.js';
import type { ApplyJob, JobQueue } from '../../../src/ports/job-queue.js';
import { usePostgres } from '../../helpers/postgres.js';

// Built by `npm run build` (npm test builds first).
const WORKER = new URL('../../../dist/test/fixtures/processes/pool-queue-worker.js', import.meta.url).pathname;

const postgres = usePostgres();
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/** A worker in its own process group, so kill -9 of the group takes the whole tree. */
function startWorker(url: string, pool: string) {
  const child: ResultPromise = execa('node', [WORKER, url, pool], { detached: true, reject: false, buffer: false });
  const lines: string[] = [];
  let notify: (() => void) | undefined;
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    lines.push(...chunk.split('\n').filter(Boolean));
    notify?.();
  });
  const killGroup = () => {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
    return child;
  };
  cleanup.push(async () => {
    if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
    await child;
  });
  return {
    lines,
    async until(line: string) {
      while (!lines.includes(line)) await new Promise<void>((resolve) => (notify = resolve));
    },
    killGroup,
  };
}

async function openQueue(url: string): Promise<JobQueue> {
  const queue = await openPgBossQueue({
    url,
    maxRunSeconds: { check: 600, apply: 600, codify: 600 },
    onError: () => undefined,
  });
  cleanup.push(() => queue.stop(1000));
  return queue;
}

describe('a worker killed with kill -9', () => {
  it('hands its check to another worker of the pool, after the heartbeat stops', async () => {
    const url = await postgres.createDatabase();
    const queue = await openQueue(url);
    const first = startWorker(url, 'prod');
    await first.until('working');
    await queue.enqueue('prod', { kind: 'check', stack: 'prod/site', trigger: 'schedule' });
    await first.until('taken check prod/site 0');
    await first.killGroup();

    const second = startWorker(url, 'prod');
    await second.until('taken check prod/site 1');
    expect(second.lines.filter((l) => l.startsWith('taken'))).toEqual(['taken check prod/site 1']);
  });

  it('never runs its apply again: the apply is handed to the control plane as abandoned', async () => {
    const url = await postgres.createDatabase();
    const queue = await openQueue(url);
    const first = startWorker(url, 'prod');
    await first.until('working');
    await queue.enqueue('prod', { kind: 'apply', stack: 'prod/site', runId: 'run-1', actor: 'U1' });
    await first.until('taken apply prod/site 0');
    await first.killGroup();
    const second = startWorker(url, 'prod');
    await second.until('working');

    const abandoned: ApplyJob[] = [];
    await new Promise<void>((resolve) => {
      void queue.workAbandonedApplies(async (job) => {
        abandoned.push(job);
        resolve();
      });
    });
    expect(abandoned).toEqual([{ kind: 'apply', stack: 'prod/site', runId: 'run-1', actor: 'U1' }]);
    expect(second.lines.filter((l) => l.startsWith('taken'))).toEqual([]);
  });
});
