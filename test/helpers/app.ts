import { join } from 'node:path';
import { execa } from 'execa';
import { createAppContext, type AppContext } from '../../src/app/context.js';
import { parseConfig } from '../../src/config/load.js';
import { configYaml, type ConfigPatch, type StackSettings } from './config-builder.js';
import { lineSink, writeStacks } from './stack-files.js';
import { makeTerraformEnv, type TestTerraformEnv } from './terraform-env.js';

export interface TestApp {
  tf: TestTerraformEnv;
  root: string;
  env: Record<string, string | undefined>;
  context: AppContext;
  /** Every log line written, for asserting that no secret reaches the logs. */
  logs: string[];
  /** Plans and applies a stack with the terraform CLI directly (test setup, not the code under test). */
  applyWithTerraform(stack: string): Promise<void>;
  now: { value: Date };
  close(): Promise<void>;
}

/**
 * A data dir, stack dirs written from HCL, and the real composition root built from a config (`config`
 * merged over the helper's own, its stacks after those of `stacks`).
 * `stacks` maps stack names to main.tf contents (undefined: the dir is not created).
 */
export async function makeTestApp(options: {
  stacks: Record<string, string | undefined>;
  config?: ConfigPatch;
  stackSettings?: Record<string, StackSettings>;
  env?: Record<string, string>;
}): Promise<TestApp> {
  const tf = await makeTerraformEnv('driftgate-app-');
  const root = join(tf.dir, 'repo');
  const stacks = await writeStacks(root, options.stacks, options.stackSettings);
  const text = configYaml(
    { version: 1, dataDir: join(tf.dir, 'data'), log: { level: 'debug' }, stacks },
    options.config,
  );
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, ...tf.env, ...options.env };
  const config = await parseConfig(text, { baseDir: root, env });
  const { lines: logs, stream: logDestination } = lineSink();
  const now = { value: new Date() };
  const context = await createAppContext(config, { env, logDestination, now: () => new Date(now.value) });
  return {
    tf,
    root,
    env,
    context,
    logs,
    now,
    async applyWithTerraform(stack) {
      const s = context.stack(stack)!;
      const tfEnv = {
        ...env,
        ...Object.fromEntries(Object.entries(s.vars).map(([k, v]) => [`TF_VAR_${k}`, String(v)])),
      };
      await execa('terraform', ['init', '-input=false', '-no-color'], { cwd: s.dir, env: tfEnv, extendEnv: false });
      await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], {
        cwd: s.dir,
        env: tfEnv,
        extendEnv: false,
      });
    },
    async close() {
      await context.close();
      await tf.cleanup();
    },
  };
}
