/**
 * The sweep's stacks (N terraform_data stacks with their applied state, and the configs of both modes)
 * and its single-process side (`driftgate check --all`); the agent API's side is bench/agent-sweep.ts.
 */
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { LocalS3 } from '../test/helpers/s3rver.js';
import { timed } from './proc-cpu.js';

export const BUCKET = 'driftgate-plans';

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
