import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Stack } from '../../domain/stack.js';
import { BackendCredentialsError, StackDirError, StalePlanError } from '../../domain/errors.js';
import { stackDirKey } from '../../domain/stack-dir.js';
import { inspectStackDir } from '../../config/stack-dirs.js';
import type {
  CommandOutput,
  FmtReport,
  PlanResult,
  RunOptions,
  TerraformRunner,
  TerraformVersion,
} from '../../ports/terraform.js';
import {
  applyArgs,
  fmtCheckArgs,
  planArgs,
  providersSchemaArgs,
  showJsonArgs,
  statePullArgs,
  validateArgs,
} from './args.js';
import { detectTerraform } from './binary.js';
import { buildChildEnv } from './env.js';
import { credentialsRejectedBeforeChanges } from './diagnostics.js';
import { commandError, commandOutput, execTerraform, type TerraformLogger } from './exec.js';
import { ensureInit, type InitContext } from './init.js';
import { createMutex } from './mutex.js';
import type { ProcessRunner } from './process.js';
import type { RunAsSandbox, Sandbox } from './run-as.js';
import { lastLines } from './tail-buffer.js';

export interface TerraformRunnerOptions {
  /** `terraform`, `tofu`, or a path; names are looked up on `env.PATH`. */
  binary: string;
  /** Milliseconds. `plan` also bounds init and show; `lock` becomes -lock-timeout. */
  timeouts: { plan: number; apply: number; lock: number; killGrace: number };
  pluginCacheDir: string;
  /** Bytes kept of each stream of each command (the tail). */
  outputLimitBytes: number;
  /** Base environment of every terraform child; process.env is never read. */
  env: Record<string, string | undefined>;
  /** Applied to everything returned or thrown (not to `showJson` and `providersSchema`, whose JSON is data). */
  /** Masks the secrets of `stack` (its config and its plans) in a text of that stack. */
  redact?: (text: string, stack: string) => string;
  logger?: TerraformLogger;
  /**
   * terraform runs as the sandbox's user, with its HOME; saved plans pass through the user's own dir, and
   * init stamps are kept in `initStampDir` (driftgate's), not in the `.terraform` the user writes.
   */
  runAs?: { sandbox: RunAsSandbox; initStampDir: string };
  /**
   * terraform runs in the container beside this worker (`runProcess` reaches it), in the dir both share:
   * saved plans and backend files pass through it, and init stamps stay in `initStampDir` (the worker's).
   */
  container?: { sandbox: Sandbox; initStampDir: string; runProcess: ProcessRunner };
}

/** Enough of a fmt diff to see what is wrong, short enough for a Slack reply. */
const FMT_REPORT_LINES = 40;

/** Before terraform runs there, in the words `driftgate validate` uses for the same problem. */
async function assertStackDir(stack: Stack): Promise<void> {
  const problem = await inspectStackDir(stack.dir);
  if (problem) throw new StackDirError(stack.name, stack.dir, problem, stackDirKey(stack));
}

export function createTerraformRunner(options: TerraformRunnerOptions): TerraformRunner {
  const baseEnv = Object.fromEntries(
    Object.entries(options.env).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const inherited = Object.fromEntries(Object.entries(baseEnv).filter(([name]) => name.startsWith('TF_VAR_')));
  let detection: Promise<TerraformVersion> | undefined;
  const version = (): Promise<TerraformVersion> => {
    detection ??= detectTerraform(options.binary, baseEnv, tmpdir()).catch((err: unknown) => {
      detection = undefined; // the binary may be installed later: try again next time
      throw err;
    });
    return detection;
  };
  const apart = options.runAs ?? options.container;
  const sandbox = apart?.sandbox;
  const ctx: InitContext = {
    binary: options.binary,
    version,
    killGraceMs: options.timeouts.killGrace,
    outputLimitBytes: options.outputLimitBytes,
    redact: options.redact ?? ((text) => text),
    logger: options.logger,
    ...(apart ? { sandbox: apart.sandbox, initStampDir: apart.initStampDir } : {}),
    ...(options.runAs ? { user: options.runAs.sandbox.user } : {}),
    ...(options.container ? { runProcess: options.container.runProcess } : {}),
    initMutex: createMutex(),
    pluginCacheDir: options.pluginCacheDir,
    lockTimeoutMs: options.timeouts.lock,
    timeoutMs: options.timeouts.plan,
    childEnv: (stack, withWorkspace) => ({
      ...buildChildEnv({ base: options.env, stack, pluginCacheDir: options.pluginCacheDir, withWorkspace }),
      ...(sandbox ? { HOME: sandbox.home } : {}),
    }),
  };

  /**
   * terraform reads a saved plan of driftgate's: apart from driftgate, from a copy in its sandbox
   * (driftgate's work dir stays closed to it).
   */
  const withPlanIn = async <T>(planPath: string, use: (path: string) => Promise<T>): Promise<T> => {
    if (!sandbox) return use(planPath);
    return sandbox.withRunDir({ 'plan.tfplan': await readFile(planPath) }, (dir) => use(join(dir, 'plan.tfplan')));
  };
  /** terraform writes a saved plan: apart from driftgate, in its sandbox, then copied to `planPath` (0600). */
  const withPlanOut = async <T extends { exitCode: number | undefined }>(
    planPath: string,
    use: (path: string) => Promise<T>,
  ): Promise<T> => {
    if (!sandbox) return use(planPath);
    return sandbox.withRunDir({}, async (dir) => {
      const inside = join(dir, 'plan.tfplan');
      const result = await use(inside);
      if (result.exitCode === 0 || result.exitCode === 2)
        await writeFile(planPath, await sandbox.takeOut(inside), { mode: 0o600 });
      return result;
    });
  };

  /** Stack dir checked and `.terraform` current; returns the common request fields. */
  const prepare = async (stack: Stack, signal: AbortSignal | undefined) => {
    await assertStackDir(stack);
    const initRan = await ensureInit(ctx, stack, signal);
    return { initRan, request: { stack, env: ctx.childEnv(stack, true), signal } };
  };

  /** A command whose stdout is JSON data: kept whole whatever the output limit, and not redacted. */
  const jsonOutput = async (stack: Stack, command: string, args: string[], runOptions: RunOptions): Promise<string> => {
    const { request } = await prepare(stack, runOptions.signal);
    const result = await execTerraform(ctx, {
      ...request,
      command,
      args,
      timeoutMs: options.timeouts.plan,
      fullStdout: true,
    });
    if (result.exitCode !== 0) throw commandError(ctx, stack.name, command, result);
    return result.stdout;
  };

  return {
    version,
    inheritedVars: () => inherited,

    async plan(stack: Stack, planFile: string, runOptions: RunOptions = {}): Promise<PlanResult> {
      const { initRan, request } = await prepare(stack, runOptions.signal);
      const planPath = resolve(stack.dir, planFile);
      await mkdir(dirname(planPath), { recursive: true });
      const result = await withPlanOut(planPath, (out) =>
        execTerraform(ctx, {
          ...request,
          command: 'plan',
          args: planArgs(stack, out, options.timeouts.lock),
          timeoutMs: options.timeouts.plan,
        }),
      );
      // -detailed-exitcode: 0 no changes, 2 changes, anything else failed.
      if (result.exitCode !== 0 && result.exitCode !== 2) throw commandError(ctx, stack.name, 'plan', result);
      return {
        ...commandOutput(ctx, stack.name, result),
        hasChanges: result.exitCode === 2,
        planFile: planPath,
        initRan,
      };
    },

    showJson(stack: Stack, planFile: string, runOptions: RunOptions = {}): Promise<string> {
      return withPlanIn(resolve(stack.dir, planFile), (path) =>
        jsonOutput(stack, 'show', showJsonArgs(path), runOptions),
      );
    },

    providersSchema(stack: Stack, runOptions: RunOptions = {}): Promise<string> {
      return jsonOutput(stack, 'providers schema', providersSchemaArgs(), runOptions);
    },

    statePull(stack: Stack, runOptions: RunOptions = {}): Promise<string> {
      return jsonOutput(stack, 'state pull', statePullArgs(), runOptions);
    },

    async fmtCheck(stack: Stack, files: string[], runOptions: RunOptions = {}): Promise<FmtReport> {
      await assertStackDir(stack);
      const request = { stack, env: ctx.childEnv(stack, false), signal: runOptions.signal };
      const result = await execTerraform(ctx, {
        ...request,
        command: 'fmt -check',
        args: fmtCheckArgs(files),
        timeoutMs: options.timeouts.plan,
      });
      // 3: some files are not formatted; anything else but 0 is fmt failing to read them.
      if (result.exitCode !== 0 && result.exitCode !== 3) throw commandError(ctx, stack.name, 'fmt -check', result);
      // fmt reports on stdout, unlike every other command: `--- old/<file>` heads each file's diff.
      const unformatted = files.filter((f) => result.stdout.includes(`--- old/${f}\n`));
      return { unformatted, diff: ctx.redact(lastLines(result.stdout, FMT_REPORT_LINES), stack.name) };
    },

    async validate(stack: Stack, runOptions: RunOptions = {}): Promise<void> {
      const { request } = await prepare(stack, runOptions.signal);
      const result = await execTerraform(ctx, {
        ...request,
        command: 'validate',
        args: validateArgs(),
        timeoutMs: options.timeouts.plan,
      });
      if (result.exitCode !== 0) throw commandError(ctx, stack.name, 'validate', result);
    },

    async apply(stack: Stack, planFile: string, runOptions: RunOptions = {}): Promise<CommandOutput> {
      const { request } = await prepare(stack, runOptions.signal);
      const result = await withPlanIn(resolve(stack.dir, planFile), (path) =>
        execTerraform(ctx, {
          ...request,
          command: 'apply',
          args: applyArgs(path, options.timeouts.lock),
          timeoutMs: options.timeouts.apply,
        }),
      );
      // terraform has no exit code of its own for this; its message is the only signal, and it is stable.
      if (result.exitCode !== 0 && /Saved plan is stale/.test(result.stderr)) {
        const { stderrTail } = commandError(ctx, stack.name, 'apply', result);
        throw new StalePlanError(
          'the state changed after this plan was made, so terraform refused to apply it; nothing was applied',
          stderrTail,
        );
      }
      if (result.exitCode !== 0 && credentialsRejectedBeforeChanges(result.stderr)) {
        const { stderrTail } = commandError(ctx, stack.name, 'apply', result);
        throw new BackendCredentialsError(
          'the backend rejected the credentials saved with this plan (expired or revoked) before anything was changed; nothing was applied',
          stderrTail,
        );
      }
      if (result.exitCode !== 0) throw commandError(ctx, stack.name, 'apply', result);
      return commandOutput(ctx, stack.name, result);
    },
  };
}
