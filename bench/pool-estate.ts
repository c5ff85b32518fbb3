/**
 * A simulated estate: checks of thousands of stacks without terraform. This process is the control plane
 * (it queues each stack's check through the queue adapter at a steady rate, as a schedule spread by jitter
 * does, and supervises the queue as a serve does); consumer processes take the jobs and sleep for as long
 * as a plan of the real sweep took. What is measured is the control plane's and Postgres's cost per job.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openPgBossQueue } from '../src/adapters/queue/pg-boss-queue.js';
import { openBenchDatabase } from './pool-processes.js';
import { treeCpuSeconds } from './proc-cpu.js';

/** Checks queued per second: a 10,000-stack estate's hourly sweep spread over about 3 minutes. */
export const ESTATE_RATE = 50;
export const CONSUMERS = 2;
export const CONSUMER_CONCURRENCY = 24;

export interface EstateMeasure {
  stacks: number;
  wallS: number;
  controlPlaneCpuMsPerJob: number;
  consumersCpuMsPerJob: number;
  postgresCpuMsPerJob: number;
  transactionsPerJob: number;
  waitMs: number[];
}

async function startConsumer(url: string, durationsMs: number[]) {
  const child = fork(
    join(import.meta.dirname, 'pool-consumer.js'),
    [url, 'default', String(CONSUMER_CONCURRENCY), JSON.stringify(durationsMs)],
    { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`a consumer exited with ${code} before it took jobs`)));
  });
  return {
    cpu: () => treeCpuSeconds(child.pid!),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** One estate of `stacks` stacks on a fresh database, each checked once. */
export async function simulateEstate(
  databaseUrl: string,
  stacks: number,
  durationsMs: number[],
): Promise<EstateMeasure> {
  const db = await openBenchDatabase(databaseUrl);
  const queue = await openPgBossQueue({
    url: databaseUrl,
    poolSize: 4,
    maxRunSeconds: { check: 600, apply: 600, codify: 600 },
    onError: () => undefined,
    applicationName: 'driftgate-bench-control-plane',
  });
  const consumers = [];
  try {
    for (let c = 0; c < CONSUMERS; c++) consumers.push(await startConsumer(databaseUrl, durationsMs));
    await sleep(1500);
    const from = await db.now();
    const own0 = process.cpuUsage();
    const consumers0 = consumers.map((c) => c.cpu());
    const pg0 = treeCpuSeconds(db.serverPid);
    const tx0 = await db.transactions();
    const t0 = performance.now();
    for (let i = 0; i < stacks; i++) {
      // On the rate's clock, not after each enqueue: a slow enqueue is caught up, not carried forward.
      const due = t0 + (i * 1000) / ESTATE_RATE - performance.now();
      if (due > 0) await sleep(due);
      const queued = await queue.enqueue('default', { kind: 'check', stack: `estate/s${i}`, trigger: 'schedule' });
      if (!queued.queued) throw new Error(`estate/s${i} was not queued: ${queued.reason}`);
    }
    for (;;) {
      const jobs = await db.checkJobs();
      if (jobs.failed > 0) throw new Error(`${jobs.failed} simulated checks failed`);
      if (jobs.completed >= stacks) break;
      await sleep(1000);
    }
    const wallS = (performance.now() - t0) / 1000;
    const own = process.cpuUsage(own0);
    const consumersCpu = consumers.reduce((sum, c, i) => sum + c.cpu() - consumers0[i]!, 0);
    const pgCpu = treeCpuSeconds(db.serverPid) - pg0;
    await sleep(1500);
    const transactions = (await db.transactions()) - tx0;
    const { waitMs } = await db.checkTimings(from);
    return {
      stacks,
      wallS,
      controlPlaneCpuMsPerJob: (own.user + own.system) / 1000 / stacks,
      consumersCpuMsPerJob: (consumersCpu * 1000) / stacks,
      postgresCpuMsPerJob: (pgCpu * 1000) / stacks,
      transactionsPerJob: transactions / stacks,
      waitMs,
    };
  } finally {
    for (const c of consumers) await c.stop();
    await queue.stop(5000);
    await db.close();
  }
}
