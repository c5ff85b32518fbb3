import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { editResourceInput } from '../src/cli/commands/demo-drift.js';
import { timed } from './proc-cpu.js';

export interface SweepResult {
  markdown: string;
  ratio: number;
}

const STACKS = 100;
const RESOURCES = 20;
const DRIFTED = 10;

function stackHcl(i: number): string {
  const blocks = Array.from(
    { length: RESOURCES },
    (_, r) =>
      `resource "terraform_data" "r${r}" {\n  input = { name = "stack${i}-r${r}", size = ${r}, tags = { team = "t${i % 7}" } }\n}\n`,
  );
  return blocks.join('\n');
}

/**
 * (a) 100 stacks of 20 terraform_data resources, 10 drifted: `driftgate check --all` against the loop
 * teams run today (for each dir: terraform init, then terraform plan -detailed-exitcode), in one run.
 */
export async function benchSweep(options: {
  workDir: string;
  env: Record<string, string>;
  bin: string;
}): Promise<SweepResult> {
  const { workDir, env } = options;
  const root = join(workDir, 'sweep');
  const dirs: string[] = [];
  for (let i = 0; i < STACKS; i++) {
    const dir = join(root, 'stacks', `s${String(i).padStart(3, '0')}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'main.tf'), stackHcl(i));
    dirs.push(dir);
  }
  const run = (args: string[], cwd: string) => execa('terraform', args, { cwd, env, extendEnv: false });
  // Setup, not timed: apply every stack, then drift ten of them by hand.
  for (const dir of dirs) {
    await run(['init', '-input=false', '-no-color'], dir);
    await run(['apply', '-auto-approve', '-input=false', '-no-color'], dir);
  }
  for (const dir of dirs.slice(0, DRIFTED)) {
    await editResourceInput({ binary: 'terraform', env }, dir, { type: 'terraform_data', name: 'r3' }, (input) => {
      input.size = 999;
    });
  }
  const config = join(root, 'driftgate.yml');
  await writeFile(
    config,
    `version: 1\ndataDir: ${join(root, 'data')}\nlog:\n  level: warn\ndiscover:\n  - glob: stacks/*\n`,
  );

  const loopScript = `for d in "$@"; do (cd "$d" && terraform init -input=false -no-color >/dev/null && terraform plan -detailed-exitcode -input=false -no-color >/dev/null; c=$?; [ $c -eq 1 ] && echo "plan failed in $d" >&2; true); done`;
  const loop = () => execa('bash', ['-c', loopScript, 'loop', ...dirs], { env, extendEnv: false });
  const driftgate = () =>
    execa('node', [options.bin, 'check', '--all', '--config', config], { env, extendEnv: false, reject: false });

  // driftgate's first sweep inits every stack; later sweeps skip the inits that nothing changed.
  const cold = await timed(async () => assertSweep(await driftgate()));
  const loopTime = await timed(loop);
  const warm = await timed(async () => assertSweep(await driftgate()));
  const ratio = warm.wall / loopTime.wall;
  const cores = cpus().length;
  const row = (name: string, t: { wall: number; cpu: number }) =>
    `| ${name} | ${t.wall.toFixed(1)} | ${t.cpu.toFixed(1)} | ${(t.cpu / cores).toFixed(1)} | ${(t.wall / loopTime.wall).toFixed(2)} |`;
  const markdown = [
    `### (a) Sweep: ${STACKS} stacks × ${RESOURCES} terraform_data resources, ${DRIFTED} drifted`,
    '',
    `Same run, same machine (${cores} cores). CPU is user+system seconds of the whole process tree (terraform included); CPU ÷ cores is the floor no amount of parallelism can beat.`,
    '',
    '| command | wall s | CPU s | CPU s ÷ cores | ratio to loop |',
    '| --- | ---: | ---: | ---: | ---: |',
    row('shell loop: `terraform init` + `terraform plan -detailed-exitcode` per dir', loopTime),
    row('`driftgate check --all`, first sweep (inits every stack)', cold),
    row('`driftgate check --all`, next sweep (init skipped when unchanged)', warm),
    '',
    `Target: driftgate ≤ 0.60 of the loop's wall time. Result: **${ratio.toFixed(2)}** — ${ratio <= 0.6 ? 'PASS' : 'FAIL'}. driftgate also runs \`terraform show -json\` for every stack with changes, analyses it and stores the artifacts, which the loop does not; it skips \`init\` when nothing it depends on changed, skips \`show -json\` when the plan's exit code says nothing changed, and gives each of its concurrent terraform processes its share of the cores (GOMAXPROCS).`,
  ].join('\n');
  return { markdown, ratio };
}

function assertSweep(result: { exitCode?: number; stdout: string; stderr: string }): void {
  const drifted = (result.stdout.match(/DRIFTED/g) ?? []).length;
  if (result.exitCode !== 2 || drifted !== DRIFTED) {
    throw new Error(
      `driftgate sweep gave exit ${result.exitCode} with ${drifted} drifted stacks:\n${result.stderr.slice(-2000)}`,
    );
  }
}
