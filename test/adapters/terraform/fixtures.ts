import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { makeTerraformEnv, type TestTerraformEnv } from '../../helpers/terraform-env.js';
import { createTerraformRunner, type TerraformRunnerOptions } from '../../../src/adapters/terraform/index.js';

export interface TerraformTestDirs {
  /** The terraform env of makeTerraformEnv(). */
  tfEnv: Record<string, string>;
  tmp: string;
}

/** Per-test terraform CLI config and temp dir, removed after each test. */
export function useTerraformTestDirs(prefix: string): TerraformTestDirs {
  const dirs = { tfEnv: {}, tmp: '' } as TerraformTestDirs;
  let tf: TestTerraformEnv | undefined;
  beforeEach(async () => {
    tf = await makeTerraformEnv();
    dirs.tfEnv = tf.env;
    dirs.tmp = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    await rm(dirs.tmp, { recursive: true, force: true });
    await tf?.cleanup();
  });
  return dirs;
}

/** Writes `files` (relative path -> content) under `dir`. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

export interface LogRecord {
  level: 'debug' | 'info' | 'warn';
  obj: Record<string, unknown>;
  msg: string;
}

/** A runner on the real terraform binary with a logger whose records the test can read. */
export function testRunner(
  tfEnv: Record<string, string>,
  tmp: string,
  overrides: Partial<TerraformRunnerOptions> = {},
) {
  const logs: LogRecord[] = [];
  const record = (level: LogRecord['level']) => (obj: object, msg: string) =>
    logs.push({ level, obj: obj as Record<string, unknown>, msg });
  const runner = createTerraformRunner({
    binary: 'terraform',
    timeouts: { plan: 120_000, apply: 120_000, lock: 10_000, killGrace: 10_000 },
    pluginCacheDir: join(tmp, 'plugin-cache'),
    outputLimitBytes: 1024 * 1024,
    env: { ...process.env, ...tfEnv },
    logger: { debug: record('debug'), info: record('info'), warn: record('warn') },
    ...overrides,
  });
  const argvs = () => logs.filter((l) => l.msg === 'terraform command').map((l) => (l.obj.argv as string[]).join(' '));
  return { runner, logs, argvs };
}
