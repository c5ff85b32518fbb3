/**
 * (g) The sweep with a real provider: N stacks of `aws_s3_object`s (the AWS provider from the machine's
 * filesystem mirror, against s3rver), the shell loop and `driftgate check --all` side by side, on two
 * estates: one where a few stacks drifted, and one where every stack has a perpetual diff.
 *
 * Settings: DRIFTGATE_BENCH_PROVIDER_MIRROR (default: the tests' mirror, /opt/tf-plugins) and
 * DRIFTGATE_BENCH_AWS_STACKS (default 6). Skipped, with a note in the results, where the mirror has no
 * AWS provider.
 */
import { mkdir } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { startLocalS3 } from '../test/helpers/s3rver.js';
import { awsMirror, BUCKET, buildEstate, type Estate, mirrorCliConfig } from './aws-estate.js';
import { timed } from './proc-cpu.js';

const OBJECTS = 5;
const DRIFTED = 2;
/** Issue 16: later sweeps of the perpetual estate cost no more CPU than the loop's plans alone… */
const PERPETUAL_CPU_TARGET = 1;
/** …and take at most this share of the loop's wall time. */
const PERPETUAL_WALL_TARGET = 0.55;

type Timing = { wall: number; cpu: number };

interface EstateRun {
  title: string;
  loopInit: Timing;
  loopPlan: Timing;
  sweeps: { name: string; t: Timing }[];
}

/**
 * The loop teams run today, as two passes over the dirs (every init, then every plan) so that the plans'
 * own cost can be read apart: the perpetual-diff target compares driftgate with the plans alone.
 */
async function loop(estate: Estate): Promise<{ init: Timing; plan: Timing }> {
  const pass = (cmd: string) =>
    execa('bash', ['-c', `for d in "$@"; do (cd "$d" && ${cmd}); done`, 'loop', ...estate.dirs], {
      env: estate.loopEnv,
      extendEnv: false,
    });
  const init = await timed(() => pass('terraform init -input=false -no-color >/dev/null'));
  let stderr = '';
  const plan = await timed(async () => {
    const result = await pass(
      `terraform plan -detailed-exitcode -input=false -no-color >/dev/null; c=$?; [ $c -eq 1 ] && echo "plan failed in $d" >&2; true`,
    );
    stderr = result.stderr;
  });
  // A plan that fails early would make the loop look cheap.
  if (stderr.includes('plan failed')) throw new Error(`the loop's plans failed:\n${stderr.slice(-2000)}`);
  return { init, plan };
}

/** One `driftgate check --all --json`; throws unless exactly `expected` stacks have changes and none failed. */
async function sweep(options: { bin: string; env: Record<string, string> }, estate: Estate, expected: number) {
  const result = await execa('node', [options.bin, 'check', '--all', '--json', '--config', estate.config], {
    env: options.env,
    extendEnv: false,
    reject: false,
  });
  let stacks: { status: string }[] = [];
  try {
    stacks = (JSON.parse(result.stdout) as { stacks: { status: string }[] }).stacks;
  } catch {
    // Reported below with stderr.
  }
  const changed = stacks.filter((s) => s.status !== 'no_changes').length;
  const failed = stacks.filter((s) => ['errored', 'interrupted', 'blocked'].includes(s.status)).length;
  if (stacks.length !== estate.dirs.length || changed !== expected || failed > 0) {
    throw new Error(
      `driftgate sweep gave exit ${result.exitCode}: ${stacks.length} stacks, ${changed} with changes (expected ${expected}), ${failed} failed:\n${result.stderr.slice(-2000)}`,
    );
  }
}

async function runEstate(
  options: { workDir: string; bin: string; env: Record<string, string>; stacks: number },
  perpetual: boolean,
): Promise<EstateRun> {
  const s3 = await startLocalS3([BUCKET]);
  try {
    const drifted = perpetual ? 0 : DRIFTED;
    const estate = await buildEstate({
      root: join(options.workDir, perpetual ? 'perpetual' : 'drift'),
      stacks: options.stacks,
      objectsPerStack: OBJECTS,
      drifted,
      perpetual,
      s3,
      env: options.env,
    });
    const expected = perpetual ? options.stacks : drifted;
    const driftgate = () => sweep(options, estate, expected);
    const first = await timed(driftgate);
    const { init, plan } = await loop(estate);
    const sweeps = [{ name: 'first sweep (inits every stack)', t: first }];
    for (let i = 1; i <= (perpetual ? 2 : 1); i++) sweeps.push({ name: `later sweep ${i}`, t: await timed(driftgate) });
    const title = perpetual
      ? `every stack with a perpetual diff (tags s3rver does not keep: the same ${OBJECTS} changes on every plan)`
      : `${drifted} stacks drifted (one object's content type changed with the S3 client)`;
    return { title, loopInit: init, loopPlan: plan, sweeps };
  } finally {
    await s3.close();
  }
}

function table(run: EstateRun, cores: number): string[] {
  const loop = { wall: run.loopInit.wall + run.loopPlan.wall, cpu: run.loopInit.cpu + run.loopPlan.cpu };
  const row = (name: string, t: Timing) =>
    `| ${name} | ${t.wall.toFixed(1)} | ${t.cpu.toFixed(1)} | ${(t.cpu / cores).toFixed(1)} | ${(t.wall / loop.wall).toFixed(2)} | ${(t.cpu / run.loopPlan.cpu).toFixed(2)} |`;
  return [
    `**Estate: ${run.title}.**`,
    '',
    "| command | wall s | CPU s | CPU s ÷ cores | wall ÷ loop | CPU ÷ loop's plans |",
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    row('shell loop: `terraform init` then `terraform plan -detailed-exitcode` per dir', loop),
    row('… of which the plans alone', run.loopPlan),
    ...run.sweeps.map((s) => row(`\`driftgate check --all\`, ${s.name}`, s.t)),
    '',
  ];
}

export async function benchSweepAws(options: {
  workDir: string;
  env: Record<string, string>;
  bin: string;
}): Promise<{ markdown: string }> {
  const mirror = awsMirror();
  const stacks = Number(process.env.DRIFTGATE_BENCH_AWS_STACKS ?? 6);
  if (!Number.isInteger(stacks) || stacks < DRIFTED) {
    throw new Error(`DRIFTGATE_BENCH_AWS_STACKS must be a whole number ≥ ${DRIFTED}`);
  }
  const heading = `### (g) Sweep with a real provider: ${stacks} stacks × ${OBJECTS} \`aws_s3_object\`s against s3rver`;
  if (mirror.versions.length === 0) {
    return {
      markdown: `${heading}\n\nSkipped: no AWS provider at ${mirror.path}/registry.terraform.io/hashicorp/aws (set DRIFTGATE_BENCH_PROVIDER_MIRROR to the filesystem mirror that holds it).`,
    };
  }
  const cliConfig = join(options.workDir, 'terraformrc-mirror');
  await mkdir(options.workDir, { recursive: true });
  await mirrorCliConfig(cliConfig, mirror.path);
  const env = { ...options.env, TF_CLI_CONFIG_FILE: cliConfig };
  const cores = cpus().length;
  const drift = await runEstate({ ...options, env, stacks }, false);
  const perpetual = await runEstate({ ...options, env, stacks }, true);

  const loopWall = perpetual.loopInit.wall + perpetual.loopPlan.wall;
  const later = perpetual.sweeps.slice(1);
  const worstCpu = Math.max(...later.map((s) => s.t.cpu / perpetual.loopPlan.cpu));
  const worstWall = Math.max(...later.map((s) => s.t.wall / loopWall));
  const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL');
  const markdown = [
    heading,
    '',
    `AWS provider ${mirror.versions.join(', ')} from the filesystem mirror at ${mirror.path}; s3rver in the benchmark's own process. Same run, same machine (${cores} cores). CPU is user+system seconds of the whole process tree (terraform and the provider included, s3rver not); CPU ÷ cores is the floor no amount of parallelism can beat. The loop runs every \`init\`, then every \`plan\`, so that the plans' own CPU can be read apart.`,
    '',
    ...table(drift, cores),
    ...table(perpetual, cores),
    `Targets (issue 16) on the perpetual-diff estate, later sweeps: CPU ≤ ${PERPETUAL_CPU_TARGET.toFixed(2)}× the loop's plans alone — worst **${worstCpu.toFixed(2)}**, ${verdict(worstCpu <= PERPETUAL_CPU_TARGET)}; wall ≤ ${PERPETUAL_WALL_TARGET}× the loop — worst **${worstWall.toFixed(2)}**, ${verdict(worstWall <= PERPETUAL_WALL_TARGET)}.`,
  ].join('\n');
  return { markdown };
}
