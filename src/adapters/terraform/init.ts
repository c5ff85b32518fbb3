import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Stack } from '../../domain/stack.js';
import { initArgs, workspaceSelectArgs } from './args.js';
import { backendConfigFile } from './env.js';
import { commandError, execTerraform, type ExecContext } from './exec.js';
import {
  INIT_STAMP_FILE,
  initFingerprint,
  stampedDir,
  readInitStamp,
  writeInitStamp,
  type InitInputs,
} from './init-fingerprint.js';
import type { Mutex } from './mutex.js';
import type { Sandbox } from './run-as.js';

export interface InitContext extends ExecContext {
  initMutex: Mutex;
  pluginCacheDir: string;
  lockTimeoutMs: number;
  timeoutMs: number;
  childEnv(stack: Stack, withWorkspace: boolean): Record<string, string>;
  /** terraform runs as another user: the backend file is put in its dir. */
  sandbox?: Sandbox;
  /** Where init stamps are kept when `.terraform` belongs to another user; default in `.terraform`. */
  initStampDir?: string;
}

/** Backend settings go through a 0600 file in a private temp dir that lives only as long as `init`. */
async function withBackendFile<T>(
  ctx: InitContext,
  stack: Stack,
  use: (file: string | undefined) => Promise<T>,
): Promise<T> {
  if (Object.keys(stack.backendConfig).length === 0) return use(undefined);
  const content = backendConfigFile(stack);
  if (ctx.sandbox)
    return ctx.sandbox.withRunDir({ 'backend.tfbackend': content }, (dir) => use(join(dir, 'backend.tfbackend')));
  const dir = await mkdtemp(join(tmpdir(), 'driftgate-backend-'));
  try {
    const file = join(dir, 'backend.tfbackend');
    await writeFile(file, content, { mode: 0o600 });
    return await use(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function runInit(ctx: InitContext, stack: Stack, signal: AbortSignal | undefined): Promise<void> {
  // terraform refuses init and `workspace select` while TF_WORKSPACE is set, so both run without it.
  const env = ctx.childEnv(stack, false);
  const common = { stack, env, timeoutMs: ctx.timeoutMs, signal };
  await mkdir(ctx.pluginCacheDir, { recursive: true });
  const init = await withBackendFile(ctx, stack, (file) =>
    execTerraform(ctx, { ...common, command: 'init', args: initArgs(ctx.lockTimeoutMs, file) }),
  );
  if (init.exitCode !== 0) throw commandError(ctx, stack.name, 'init', init);
  if (stack.workspace && stack.workspace !== 'default') {
    // A missing workspace fails every later command under TF_WORKSPACE: create it now.
    const select = await execTerraform(ctx, {
      ...common,
      command: 'workspace select',
      args: workspaceSelectArgs(stack.workspace),
    });
    if (select.exitCode !== 0) throw commandError(ctx, stack.name, 'workspace select', select);
  }
}

/**
 * `init` when the stack's init fingerprint changed or `.terraform` is gone. Inits are serialised per
 * runner because terraform's shared plugin cache is not safe for concurrent writers; the fingerprint check
 * itself runs outside the lock so plans of initialised stacks never wait. Returns whether init ran.
 */
export async function ensureInit(ctx: InitContext, stack: Stack, signal?: AbortSignal): Promise<boolean> {
  const bin = await ctx.version();
  const inputs: InitInputs = {
    dir: stack.dir,
    binaryVersion: `${bin.flavor} ${bin.version}`,
    workspace: stack.workspace ?? 'default',
    backendConfig: stack.backendConfig,
  };
  const stamp = stampFile(ctx, stack.dir);
  const upToDate = async () =>
    (!ctx.initStampDir || (await hasDotTerraform(stack.dir))) &&
    (await readInitStamp(stamp)) === (await initFingerprint(inputs));
  if (await upToDate()) return false;
  return ctx.initMutex.run(async () => {
    if (await upToDate()) return false; // another caller inited this stack while we waited
    await runInit(ctx, stack, signal);
    // After init: init may have written the lock file, which is part of the fingerprint.
    await writeInitStamp(stamp, await initFingerprint(inputs), ctx.initStampDir ? stack.dir : undefined);
    if (ctx.initStampDir) await pruneInitStamps(ctx.initStampDir, ctx.logger);
    ctx.logger?.info({ stack: stack.name, workspace: inputs.workspace }, 'terraform init ran');
    return true;
  });
}

/**
 * The stamp of a stack's last init. Another user's `.terraform` is not written by driftgate: a link
 * planted there would point its write anywhere. Its stamp is kept in driftgate's own dir instead.
 */
function stampFile(ctx: InitContext, dir: string): string {
  if (!ctx.initStampDir) return join(dir, INIT_STAMP_FILE);
  return join(ctx.initStampDir, createHash('sha256').update(dir).digest('hex'));
}

/**
 * The stamps kept in `stampDir` whose stack dir is gone. A Git stack's copy is made afresh for each job
 * and removed after it, so each job left one stamp for good: pruned at each init, they stay as many as
 * the dirs that exist. A stamp written before stamps named their dir stays (its dir is not known).
 */
async function pruneInitStamps(stampDir: string, logger: InitContext['logger']): Promise<void> {
  for (const name of await readdir(stampDir).catch(() => [])) {
    const file = join(stampDir, name);
    const dir = await stampedDir(file).catch(() => undefined);
    if (dir === undefined || (await lstat(dir).catch(() => undefined))) continue;
    await rm(file, { force: true }).catch((err: unknown) =>
      logger?.warn({ file, err: String(err) }, 'init stamp of a removed dir not pruned'),
    );
  }
}

/** A stamp kept elsewhere outlives `.terraform`: init again when it is gone. */
async function hasDotTerraform(dir: string): Promise<boolean> {
  return (await lstat(join(dir, '.terraform')).catch(() => undefined))?.isDirectory() ?? false;
}
