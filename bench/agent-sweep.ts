/**
 * The agent API's side of the agent-pools benchmark: a serve with `runners: {type: workers, agent: ...}`
 * whose scheduler runs the checks and hands each plan to `driftgate worker` processes that hold only the
 * control plane's URL and their pool token; and a simulated estate, where this process plays the workers
 * through the real agent API with canned plan output.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { createAgentClient } from '../src/adapters/agent/agent-client.js';
import type { PlanOpResult } from '../src/domain/agent/op-messages.js';
import { closedPort } from '../test/helpers/ports.js';
import { installOpsProbe, type OpTimes } from './agent-ops-probe.js';
import { type BenchDatabase, openBenchDatabase, startDriftgate, type BenchProcess } from './pool-processes.js';
import { stackName, type SweepFixture, type SweepMeasure } from './pool-sweep.js';
import { treeCpuSeconds } from './proc-cpu.js';

/** Checks of one stack, one every PACED_EVERY_S seconds, the workers idle in their long poll in between. */
const PACED_JOBS = 20;
const PACED_EVERY_S = 2;
/** Time enough for the serve and its workers to start (and the serve to lead) before a timed tick. */
const TICK_LEAD_MS = 30_000;
/** Simulated checks queued per second (the schedule's jitter spreads them): 10,000 stacks in about 3 minutes. */
export const AGENT_ESTATE_RATE = 50;
/** The simulated workers' slots: each a claim loop in this process, on the real agent API. */
export const SIMULATED_SLOTS = 32;

/** A six-field (seconds) cron that fires once, at `at`, on node-cron's clock (this machine's local time). */
const cronAt = (at: Date) => `${at.getSeconds()} ${at.getMinutes()} ${at.getHours()} * * *`;

/** The fixture's pools config with the agent API on `port` and the schedule given. */
async function agentConfig(
  fixture: Pick<SweepFixture, 'poolConfig' | 'root'>,
  name: string,
  port: number,
  schedule: { cron: string; jitterS: number; glob?: string },
): Promise<string> {
  const text = (await readFile(fixture.poolConfig, 'utf8'))
    .replace(
      "defaults:\n  jitter: 0s\n  schedule: '0 0 1 1 *'",
      `defaults:\n  jitter: ${schedule.jitterS}s\n  schedule: '${schedule.cron}'`,
    )
    .replace('runners:\n  type: workers', `runners:\n  type: workers\n  agent:\n    port: ${port}\n    host: 127.0.0.1`)
    .replace('- glob: stacks/*', `- glob: ${schedule.glob ?? 'stacks/*'}`);
  if (!text.includes(`port: ${port}`) || !text.includes(schedule.cron))
    throw new Error(`${fixture.poolConfig} is not the pools fixture's config: cannot make the agent's from it`);
  const file = join(fixture.root, `driftgate-${name}.yml`);
  await writeFile(file, text);
  return file;
}

/** A pool token for `default`, made with the CLI as an operator would. */
async function poolToken(bin: string, configFile: string, env: Record<string, string>, cwd: string): Promise<string> {
  const created = await execa('node', [bin, 'pool', 'token', 'create', 'default', '--config', configFile], {
    env: { ...env, DRIFTGATE_DATA_DIR: join(cwd, 'data-cli') },
    extendEnv: false,
    reject: false,
    cwd,
  });
  if (created.exitCode !== 0) throw new Error(`pool token create default failed: ${created.stderr}`);
  return created.stdout.split('\n')[0]!;
}

async function waitUntil(what: string, done: () => Promise<boolean>, timeoutMs: number, everyMs = 200): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Runs in a state other than no changes or planning (a failure, an interruption). */
const notClean = (states: Record<string, number>) =>
  Object.entries(states).reduce((sum, [state, n]) => sum + (['no_changes', 'planning'].includes(state) ? 0 : n), 0);

/** Whether `count` checks found no changes; throws once any other outcome appears beyond `badBefore`. */
async function cleanRunsAtLeast(db: BenchDatabase, count: number, badBefore: number): Promise<boolean> {
  const states = await db.runStates();
  if (notClean(states) > badBefore) throw new Error(`a check did not end clean: ${JSON.stringify(states)}`);
  return (states.no_changes ?? 0) >= count;
}

export interface AgentSweepMeasure extends SweepMeasure {
  /** The paced checks' ops: enqueue → lease, result stored → seen by the control plane. */
  paced: OpTimes;
}

/**
 * The same 2 (or `workers`) worker processes, on the agent API: first PACED_JOBS checks of one stack, one
 * every PACED_EVERY_S s (a serve whose schedule names that stack only); then a serve of every stack whose
 * schedule fires once, all stacks at the same second, and the sweep is timed from that tick to its last run.
 */
export async function sweepOnAgentWorkers(options: {
  fixture: SweepFixture;
  bin: string;
  env: Record<string, string>;
  databaseUrl: string;
  workers: number;
}): Promise<AgentSweepMeasure> {
  const { fixture, bin, databaseUrl } = options;
  const serveEnv = {
    ...options.env,
    DATABASE_URL: databaseUrl,
    DRIFTGATE_DATA_DIR: join(fixture.root, 'data-agent-serve'),
  };
  const port = await closedPort();
  const pacedConfig = await agentConfig(fixture, 'agent-paced', port, {
    cron: `*/${PACED_EVERY_S} * * * * *`,
    jitterS: 0,
    glob: `stacks/${stackName(0)}`,
  });
  const token = await poolToken(bin, pacedConfig, serveEnv, fixture.root);
  const db = await openBenchDatabase(databaseUrl);
  const workers: BenchProcess[] = [];
  let serve: BenchProcess | undefined;
  const startServe = async (configFile: string) =>
    startDriftgate('serve', { bin, args: ['serve'], configFile, cwd: fixture.root, env: serveEnv });
  const startWorkers = async (configFile: string) => {
    for (let w = 1; w <= options.workers; w++)
      workers.push(
        await startDriftgate(`worker${w}`, {
          bin,
          args: ['worker', '--pool', 'default', '--concurrency', '1'],
          configFile,
          cwd: fixture.root,
          // The control plane's address and the pool's token: nothing of the store, the bucket or the bot.
          env: {
            ...options.env,
            DRIFTGATE_CONTROL_PLANE_URL: `http://127.0.0.1:${port}`,
            DRIFTGATE_POOL_TOKEN: token,
            DRIFTGATE_DATA_DIR: join(fixture.root, `data-agent-${options.workers}w-worker${w}`),
          },
        }),
      );
  };
  const stopAll = async () => {
    for (const p of workers.splice(0).reverse()) await p.stop();
    await serve?.stop();
    serve = undefined;
  };
  try {
    serve = await startServe(pacedConfig);
    await startWorkers(pacedConfig);
    const probe = await installOpsProbe(databaseUrl);
    let paced: OpTimes;
    try {
      await waitUntil(`${PACED_JOBS} paced checks`, async () => (await probe.seen()) >= PACED_JOBS, 5 * 60_000);
      paced = await probe.times();
      await probe.drop();
    } finally {
      await probe.close();
    }
    await stopAll();

    // Every stack at one tick, far enough ahead for the processes to start.
    const tick = new Date(Math.ceil((Date.now() + TICK_LEAD_MS) / 1000) * 1000);
    const sweepConfig = await agentConfig(fixture, 'agent-sweep', port, { cron: cronAt(tick), jitterS: 0 });
    const before = await db.runStates();
    const runsBefore = before.no_changes ?? 0;
    // The paced serve was stopped with a check of its own perhaps in flight: what it left is not the sweep's.
    const badBefore = notClean(before);
    serve = await startServe(sweepConfig);
    await startWorkers(sweepConfig);
    if (Date.now() > tick.getTime() - 2000)
      throw new Error(
        `the agent processes took more than ${TICK_LEAD_MS / 1000 - 2} s to start: the sweep's tick passed`,
      );
    const processes = [serve, ...workers];
    // Measured from the tick: the processes' start and their idle wait for it are not the sweep's.
    await sleep(Math.max(0, tick.getTime() - Date.now() - 500));
    const cpu0 = processes.map((p) => p.cpu());
    const pg0 = treeCpuSeconds(db.serverPid);
    const tx0 = await db.transactions();
    await sleep(Math.max(0, tick.getTime() - Date.now()));
    const t0 = performance.now();
    const target = runsBefore + fixture.stacks.length;
    await waitUntil('the agent sweep', async () => cleanRunsAtLeast(db, target, badBefore), 60 * 60_000);
    const wallS = (performance.now() - t0) / 1000;
    const cpu = processes.map((p, i) => ({ name: p.role, seconds: p.cpu() - cpu0[i]! }));
    const pgCpu = treeCpuSeconds(db.serverPid) - pg0;
    await sleep(1500);
    const transactions = (await db.transactions()) - tx0;
    return {
      label: `${options.workers} workers, agent API`,
      wallS,
      cpu: [...cpu, { name: 'postgres', seconds: pgCpu }],
      paced,
      transactionsPerJob: transactions / fixture.stacks.length,
    };
  } finally {
    await stopAll();
    await db.close();
  }
}

export interface AgentEstateMeasure {
  stacks: number;
  wallS: number;
  controlPlaneCpuMsPerJob: number;
  postgresCpuMsPerJob: number;
  transactionsPerJob: number;
}

/** `count` stacks of the sweep's template, in their own dir; the control plane never runs terraform on them. */
async function writeEstate(root: string, count: number): Promise<string> {
  const dir = join(root, `estate-${count}`);
  const hcl = await readFile(join(root, 'template', 'main.tf'), 'utf8');
  for (let i = 0; i < count; i++) {
    await mkdir(join(dir, stackName(i)), { recursive: true });
    await writeFile(join(dir, stackName(i), 'main.tf'), hcl);
  }
  return `estate-${count}/*`;
}

/**
 * A serve of `count` stacks on the agent API, its schedule firing once and spread by jitter at
 * AGENT_ESTATE_RATE a second; this process is the pool (SIMULATED_SLOTS claim loops of the real agent
 * client) and answers each plan with a canned no-changes result after a plan's duration from the sweep.
 * Measured: the serve's CPU (its whole tree) and Postgres's, per job.
 */
export async function simulateAgentEstate(options: {
  fixture: SweepFixture;
  bin: string;
  env: Record<string, string>;
  databaseUrl: string;
  count: number;
  durationsMs: number[];
}): Promise<AgentEstateMeasure> {
  const { fixture, bin, databaseUrl, count } = options;
  const glob = await writeEstate(fixture.root, count);
  const port = await closedPort();
  const jitterS = Math.max(1, Math.round(count / AGENT_ESTATE_RATE));
  // A serve's start records every stack in the store, one commit each: about 4 ms a stack here.
  const tick = new Date(Math.ceil((Date.now() + TICK_LEAD_MS + 8 * count) / 1000) * 1000);
  const configFile = await agentConfig(fixture, `agent-estate-${count}`, port, { cron: cronAt(tick), jitterS, glob });
  const serveEnv = {
    ...options.env,
    DATABASE_URL: databaseUrl,
    DRIFTGATE_DATA_DIR: join(fixture.root, `data-estate-${count}`),
  };
  const token = await poolToken(bin, configFile, serveEnv, fixture.root);
  const db = await openBenchDatabase(databaseUrl);
  const serve = await startDriftgate('serve', { bin, args: ['serve'], configFile, cwd: fixture.root, env: serveEnv });
  const client = createAgentClient({ url: `http://127.0.0.1:${port}`, token });
  const stop = new AbortController();
  const version = (await execa('terraform', ['version', '-json'], { env: options.env, extendEnv: false })).stdout;
  const durationOf = (stack: string) =>
    options.durationsMs[Number(/\d+$/.exec(stack)?.[0] ?? 0) % options.durationsMs.length]!;
  const slot = async () => {
    while (!stop.signal.aborted) {
      const claimed = await client.claim(20, stop.signal).catch(() => undefined);
      if (!claimed) continue;
      const durationMs = durationOf(claimed.job.stack);
      await sleep(durationMs);
      const result: PlanOpResult = {
        ok: true,
        stdout: 'No changes. Your infrastructure matches the configuration.\n',
        stderr: '',
        exitCode: 0,
        durationMs,
        truncated: false,
        hasChanges: false,
        initRan: false,
        version: {
          flavor: 'terraform',
          version: (JSON.parse(version) as { terraform_version: string }).terraform_version,
          path: 'terraform',
        },
      };
      if (!(await client.result(claimed.job.id, claimed.lease, result)))
        throw new Error(`the result of ${claimed.job.stack} was refused`);
    }
  };
  const slots: Promise<void>[] = [];
  try {
    if (Date.now() > tick.getTime() - 2000) throw new Error('the estate serve took too long to start: its tick passed');
    for (let s = 0; s < SIMULATED_SLOTS; s++) slots.push(slot());
    // Measured from the tick: the serve's start and its idle wait for it are not the estate's.
    await sleep(Math.max(0, tick.getTime() - Date.now() - 500));
    const cpu0 = serve.cpu();
    const pg0 = treeCpuSeconds(db.serverPid);
    const tx0 = await db.transactions();
    await sleep(Math.max(0, tick.getTime() - Date.now()));
    const t0 = performance.now();
    await waitUntil(`the simulated estate of ${count}`, async () => cleanRunsAtLeast(db, count, 0), 60 * 60_000, 1000);
    const wallS = (performance.now() - t0) / 1000;
    const cpu = serve.cpu() - cpu0;
    const pgCpu = treeCpuSeconds(db.serverPid) - pg0;
    await sleep(1500);
    const transactions = (await db.transactions()) - tx0;
    return {
      stacks: count,
      wallS,
      controlPlaneCpuMsPerJob: (cpu * 1000) / count,
      postgresCpuMsPerJob: (pgCpu * 1000) / count,
      transactionsPerJob: transactions / count,
    };
  } finally {
    stop.abort();
    await Promise.allSettled(slots);
    await serve.stop();
    await db.close();
  }
}
