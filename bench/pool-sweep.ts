/**
 * One sweep of N terraform_data stacks: in the single-process mode (`driftgate check --all`), and through
 * the control plane on 1, 2 or 4 `driftgate worker` processes sharing Postgres and an S3 bucket.
 */
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { openPgBossQueue } from '../src/adapters/queue/pg-boss-queue.js';
import type { LocalS3 } from '../test/helpers/s3rver.js';
import { openBenchDatabase, startDriftgate, type BenchProcess } from './pool-processes.js';
import { timed, treeCpuSeconds } from './proc-cpu.js';

export const BUCKET = 'driftgate-plans';
/** Jobs enqueued one at a time, each after the last finished: the queue's overhead with idle workers. */
const PACED_JOBS = 20;

const STACK_HCL = `
resource "terraform_data" "network" {
  input = { cidr = "10.0.0.0/16", tags = { team = "core" } }
}
resource "terraform_data" "app" {
  input = { image = "app:1.2.3", replicas = 3 }
}
`;

export interface SweepFixture {
  root: string;
  stacks: string[];
  localConfig: string;
  poolConfig: string;
}

/** What `discover: [{glob: stacks/*}]` names the stack in stacks/<name>. */
export const stackName = (i: number): string => `s${String(i).padStart(5, '0')}`;

/**
 * N identical stacks, each with the state of an applied stack (applied once and copied: applying a
 * thousand stacks one by one would take longer than the benchmark), so that a check finds no changes.
 */
export async function writeSweepFixture(
  root: string,
  count: number,
  env: Record<string, string>,
  s3: LocalS3,
): Promise<SweepFixture> {
  const template = join(root, 'template');
  await mkdir(template, { recursive: true });
  await writeFile(join(template, 'main.tf'), STACK_HCL);
  const tf = (args: string[]) => execa('terraform', args, { cwd: template, env, extendEnv: false });
  await tf(['init', '-input=false', '-no-color']);
  await tf(['apply', '-auto-approve', '-input=false', '-no-color']);
  const stacks = Array.from({ length: count }, (_, i) => stackName(i));
  for (const stack of stacks) {
    const dir = join(root, 'stacks', stack);
    await mkdir(dir, { recursive: true });
    await cp(join(template, 'main.tf'), join(dir, 'main.tf'));
    await cp(join(template, 'terraform.tfstate'), join(dir, 'terraform.tfstate'));
  }
  const common = [
    'version: 1',
    'log:\n  level: info',
    // Checks come only from the benchmark: no schedule of its own fires during a sweep.
    "defaults:\n  jitter: 0s\n  schedule: '0 0 1 1 *'",
    'discover:\n  - glob: stacks/*',
  ];
  const localConfig = join(root, 'driftgate-local.yml');
  await writeFile(localConfig, [...common, `dataDir: ${join(root, 'data-local')}`].join('\n'));
  const poolConfig = join(root, 'driftgate-pools.yml');
  await writeFile(
    poolConfig,
    [
      ...common,
      // Each process its own data dir (work files, plugin cache), as on its own machine.
      'dataDir: ${DRIFTGATE_DATA_DIR}',
      'store:\n  type: postgres\n  url: ${DATABASE_URL}',
      `artifacts:\n  type: s3\n  bucket: ${BUCKET}\n  region: ${s3.region}\n  endpoint: ${s3.endpoint}\n  forcePathStyle: true`,
      'runners:\n  type: workers',
    ].join('\n'),
  );
  return { root, stacks, localConfig, poolConfig };
}

export interface SweepMeasure {
  label: string;
  wallS: number;
  /** CPU seconds per process tree (driftgate and terraform), and Postgres's. */
  cpu: { name: string; seconds: number }[];
  /** With workers: enqueue to start in ms, paced (idle workers) and in the sweep (behind the backlog). */
  pacedWaitMs?: number[];
  /** Outcomes relayed to the control plane while workers were idle: queued by a worker, taken by serve. */
  relayWaitMs?: number[];
  sweepWaitMs?: number[];
  /** ms each check job ran on its worker. */
  runMs?: number[];
  /** The workers' slots idle between jobs during the sweep, ms per job. */
  idlePerJobMs?: number;
  transactionsPerJob?: number;
}

/** `driftgate check --all` in one process (SQLite, local artifacts), as the single-process mode runs it. */
export async function sweepSingleProcess(
  fixture: SweepFixture,
  bin: string,
  env: Record<string, string>,
  label: string,
): Promise<SweepMeasure> {
  let failure: string | undefined;
  const t = await timed(async () => {
    const result = await execa('node', [bin, 'check', '--all', '--config', fixture.localConfig], {
      env,
      extendEnv: false,
      reject: false,
      cwd: fixture.root,
    });
    // 0: every stack checked and none drifted, as the fixture's stacks are.
    if (result.exitCode !== 0) failure = `exit ${result.exitCode}: ${result.stderr.slice(-2000)}`;
  });
  if (failure) throw new Error(`${label}: ${failure}`);
  return { label, wallS: t.wall, cpu: [{ name: 'driftgate check --all', seconds: t.cpu }] };
}

/**
 * A serve (the control plane: it takes what workers relay) and `workers` worker processes on a fresh
 * database; the benchmark queues one check per stack through the queue adapter, as the control plane's
 * dispatcher does on a schedule tick, and waits until every check job is done.
 */
export async function sweepOnWorkers(options: {
  fixture: SweepFixture;
  bin: string;
  env: Record<string, string>;
  databaseUrl: string;
  workers: number;
}): Promise<SweepMeasure> {
  const { fixture, bin, databaseUrl } = options;
  const env = { ...options.env, DATABASE_URL: databaseUrl };
  const start = (role: string, args: string[]) =>
    startDriftgate(role, {
      bin,
      args,
      configFile: fixture.poolConfig,
      cwd: fixture.root,
      env: { ...env, DRIFTGATE_DATA_DIR: join(fixture.root, `data-${options.workers}w-${role}`) },
    });
  const db = await openBenchDatabase(databaseUrl);
  const processes: BenchProcess[] = [];
  const queue = await openPgBossQueue({
    url: databaseUrl,
    poolSize: 4,
    maxRunSeconds: { check: 600, apply: 600, codify: 600 },
    // Looks after nothing: the serve is the control plane that supervises the queue.
    supervise: false,
    onError: () => undefined,
    applicationName: 'driftgate-bench-dispatch',
  });
  try {
    processes.push(await start('serve', ['serve']));
    for (let w = 1; w <= options.workers; w++)
      processes.push(await start(`worker${w}`, ['worker', '--pool', 'default', '--concurrency', '1']));
    const check = (stack: string) => queue.enqueue('default', { kind: 'check', stack, trigger: 'schedule' });
    const jobsDone = async (count: number) => {
      for (;;) {
        const jobs = await db.checkJobs();
        if (jobs.failed > 0) throw new Error(`${jobs.failed} check jobs failed on ${options.workers} workers`);
        if (jobs.completed >= count) return;
        await sleep(200);
      }
    };

    // Workers idle: one job at a time, the next once the last one is done.
    for (let i = 0; i < PACED_JOBS; i++) {
      await check(fixture.stacks[i % fixture.stacks.length]!);
      await jobsDone(i + 1);
    }
    const paced = await db.checkTimings();
    // The serve takes the paced checks' relayed outcomes just after: give the last one a moment.
    await sleep(1000);
    const relay = await db.relayTimings();

    await sleep(1500);
    const sweepFrom = await db.now();
    const cpu0 = processes.map((p) => p.cpu());
    const pg0 = treeCpuSeconds(db.serverPid);
    const tx0 = await db.transactions();
    const t0 = performance.now();
    for (const stack of fixture.stacks) {
      const queued = await check(stack);
      if (!queued.queued) throw new Error(`${stack} was not queued: ${queued.reason}`);
    }
    await jobsDone(PACED_JOBS + fixture.stacks.length);
    const wallS = (performance.now() - t0) / 1000;
    const cpu = processes.map((p, i) => ({ name: p.role, seconds: p.cpu() - cpu0[i]! }));
    const pgCpu = treeCpuSeconds(db.serverPid) - pg0;
    await sleep(1500);
    const transactions = (await db.transactions()) - tx0;
    const sweep = await db.checkTimings(sweepFrom);
    const states = await db.runStates();
    if ((states.no_changes ?? 0) < PACED_JOBS + fixture.stacks.length)
      throw new Error(`not every check found no changes: ${JSON.stringify(states)}`);
    const busyMs = sweep.runMs.reduce((a, b) => a + b, 0);
    return {
      label: `${options.workers} worker${options.workers > 1 ? 's' : ''}`,
      wallS,
      cpu: [...cpu, { name: 'postgres', seconds: pgCpu }],
      pacedWaitMs: paced.waitMs,
      relayWaitMs: relay.waitMs,
      sweepWaitMs: sweep.waitMs,
      runMs: sweep.runMs,
      idlePerJobMs: (options.workers * wallS * 1000 - busyMs) / fixture.stacks.length,
      transactionsPerJob: transactions / fixture.stacks.length,
    };
  } finally {
    await queue.stop(5000);
    for (const p of processes.reverse()) await p.stop();
    await db.close();
  }
}
