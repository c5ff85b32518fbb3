/**
 * A stand-in for a worker in the simulated estate: takes check jobs from the real queue adapter and, for
 * each, sleeps as long as a plan of the real sweep took, instead of running terraform. Run as its own
 * process (`node pool-consumer.js URL POOL CONCURRENCY DURATIONS_MS_JSON`) so that its CPU is not counted
 * as the control plane's. Stops on SIGTERM.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { openPgBossQueue } from '../src/adapters/queue/pg-boss-queue.js';

const [url, pool, concurrency, durationsJson] = process.argv.slice(2);
const durations = JSON.parse(durationsJson ?? '[]') as number[];
if (!url || !pool || !concurrency || durations.length === 0) {
  console.error('usage: pool-consumer URL POOL CONCURRENCY DURATIONS_MS_JSON');
  process.exit(2);
}

const queue = await openPgBossQueue({
  url,
  poolSize: 4,
  maxRunSeconds: { check: 600, apply: 600, codify: 600 },
  onError: (err) => console.error(`queue error: ${err.message}`),
  applicationName: 'driftgate-bench-consumer',
});
// The same stack always takes the same time, as a stack's plan does from one sweep to the next.
const durationOf = (stack: string) => durations[Number(/\d+$/.exec(stack)?.[0] ?? 0) % durations.length]!;
await queue.work(pool, ['check'], Number(concurrency), async ({ job }) => {
  await sleep(durationOf(job.stack));
});
process.send?.('ready');
process.once('SIGTERM', () => {
  void queue.stop(10_000).then(() => process.exit(0));
});
