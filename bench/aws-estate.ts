/**
 * An estate of real-provider stacks for the sweep benchmark: N directories of `aws_s3_object`s planned by
 * the AWS provider from the machine's filesystem mirror against a local S3-compatible server (s3rver).
 * Building one (init + apply of every stack, then the out-of-band edits) is setup, never timed.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import {
  changeOutOfBand,
  type S3ObjectSpec,
  s3ObjectStackHcl,
  s3StackSettings,
  s3TestClient,
} from '../test/helpers/s3-object-stack.js';
import type { LocalS3 } from '../test/helpers/s3rver.js';
import { PROVIDER_MIRROR } from '../test/helpers/terraform-env.js';

export const BUCKET = 'bench';

/** Where the AWS provider is looked for: the bench's own setting, else the tests' one (/opt/tf-plugins). */
export function awsMirror(env: Record<string, string | undefined> = process.env): {
  path: string;
  versions: string[];
} {
  const path = env.DRIFTGATE_BENCH_PROVIDER_MIRROR ?? PROVIDER_MIRROR;
  const dir = join(path, 'registry.terraform.io/hashicorp/aws');
  return { path, versions: existsSync(dir) ? readdirSync(dir).sort() : [] };
}

/** A terraform CLI config that installs providers from the mirror only (nothing is downloaded). */
export async function mirrorCliConfig(file: string, mirror: string): Promise<void> {
  await writeFile(
    file,
    `disable_checkpoint = true\nprovider_installation {\n  filesystem_mirror {\n    path    = ${JSON.stringify(mirror)}\n    include = ["registry.terraform.io/hashicorp/*"]\n  }\n}\n`,
  );
}

export interface EstateOptions {
  root: string;
  stacks: number;
  objectsPerStack: number;
  /** The first `drifted` stacks get one object changed out of band (its content type). */
  drifted: number;
  /** Tags on every object: s3rver drops tags sent with PutObject, so every plan shows them again. */
  perpetual: boolean;
  s3: LocalS3;
  /** terraform's environment: CLI config with the mirror, no checkpoint. */
  env: Record<string, string>;
}

export interface Estate {
  dirs: string[];
  /** The environment the shell loop runs terraform with: the stacks' variables and credentials added. */
  loopEnv: Record<string, string>;
  /** driftgate.yml discovering every stack, with the same variables and credentials. */
  config: string;
}

function objects(stack: number, count: number, perpetual: boolean): S3ObjectSpec[] {
  return Array.from({ length: count }, (_, j) => ({
    name: `o${j}`,
    key: `s${stack}-o${j}.txt`,
    content: `stack ${stack} object ${j}\n`,
    contentType: 'text/plain',
    ...(perpetual ? { tags: { team: `t${stack % 7}`, object: String(j) } } : {}),
  }));
}

/** Runs `fn` over `items`, `width` at a time: setup uses both cores, the timed parts are left alone. */
async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: width }, worker));
}

export async function buildEstate(options: EstateOptions): Promise<Estate> {
  const { root, s3 } = options;
  const settings = s3StackSettings(s3);
  const loopEnv = { ...options.env, ...settings.env, TF_VAR_s3_endpoint: settings.vars.s3_endpoint! };
  const dirs: string[] = [];
  for (let i = 0; i < options.stacks; i++) {
    const dir = join(root, 'stacks', `s${String(i).padStart(3, '0')}`);
    await mkdir(dir, { recursive: true });
    const hcl = s3ObjectStackHcl({ bucket: BUCKET, objects: objects(i, options.objectsPerStack, options.perpetual) });
    await writeFile(join(dir, 'main.tf'), hcl);
    dirs.push(dir);
  }
  const run = (args: string[], cwd: string) => execa('terraform', args, { cwd, env: loopEnv, extendEnv: false });
  await pool(dirs, 2, async (dir) => {
    await run(['init', '-input=false', '-no-color'], dir);
    await run(['apply', '-auto-approve', '-input=false', '-no-color'], dir);
  });
  const client = s3TestClient(s3);
  try {
    for (let i = 0; i < options.drifted; i++) {
      await changeOutOfBand(client, BUCKET, `s${i}-o0.txt`, { contentType: 'application/x-changed-by-hand' });
    }
  } finally {
    client.destroy();
  }
  const config = join(root, 'driftgate.yml');
  const yaml = [
    'version: 1',
    `dataDir: ${join(root, 'data')}`,
    'log:',
    '  level: warn',
    'discover:',
    '  - glob: stacks/*',
    '    vars:',
    `      s3_endpoint: ${JSON.stringify(settings.vars.s3_endpoint)}`,
    '    env:',
    ...Object.entries(settings.env).map(([k, v]) => `      ${k}: ${JSON.stringify(v)}`),
    '',
  ].join('\n');
  await writeFile(config, yaml);
  return { dirs, loopEnv, config };
}
