import type { Stack } from '../../domain/stack.js';
import { StackDirError, TerraformBinaryMissingError, TerraformError } from '../../domain/errors.js';
import { stackDirKey } from '../../domain/stack-dir.js';
import { inspectStackDir } from '../../config/stack-dirs.js';
import type { CommandOutput, TerraformVersion } from '../../ports/terraform.js';
import { runProcess, type ProcessResult, type ProcessRunner } from './process.js';
import { driftgateAdvice, errorsFirst } from './diagnostics.js';
import type { Logger } from '../../ports/logger.js';

export type TerraformLogger = Pick<Logger, 'debug' | 'info' | 'warn'>;

/** Lines of stderr kept in a TerraformError: enough for terraform's error box, short enough for Slack. */
const STDERR_TAIL_LINES = 30;

export interface ExecContext {
  binary: string;
  version(): Promise<TerraformVersion>;
  killGraceMs: number;
  outputLimitBytes: number;
  /** Masks the secrets of `stack` in a text of that stack. */
  redact: (text: string, stack: string) => string;
  logger?: TerraformLogger;
  /** terraform runs as this user, not as driftgate's (run-as.ts). */
  user?: { uid: number; gid: number };
  /** Where the process runs; default here (the terraform container beside a worker: container-client.ts). */
  runProcess?: ProcessRunner;
}

export interface ExecRequest {
  /** Names the command in errors and logs: `plan`, `init`, `workspace select`... */
  command: string;
  stack: Stack;
  args: string[];
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Keep all of stdout (show -json): it is data, not a log. */
  fullStdout?: boolean;
}

/** What makes spawning in the stack dir fail (a read-only dir or one without *.tf files does not). */
const CWD_PROBLEMS = new Set(['missing', 'file', 'not_directory', 'unreadable']);

/** Runs terraform in the stack dir. Throws on timeout, abort and spawn failure; exit codes are the caller's. */
export async function execTerraform(ctx: ExecContext, req: ExecRequest): Promise<ProcessResult> {
  const bin = await ctx.version();
  if (req.signal?.aborted) throw new TerraformError(req.command, undefined, 'aborted before it started');
  // argv holds no secrets by construction (see args.ts), so it may be logged.
  ctx.logger?.debug(
    { stack: req.stack.name, command: req.command, argv: [bin.path, ...req.args] },
    'terraform command',
  );
  const result = await (ctx.runProcess ?? runProcess)({
    file: bin.path,
    args: req.args,
    cwd: req.stack.dir,
    env: req.env,
    timeoutMs: req.timeoutMs,
    killGraceMs: ctx.killGraceMs,
    signal: req.signal,
    stdoutLimit: req.fullStdout ? Infinity : ctx.outputLimitBytes,
    stderrLimit: ctx.outputLimitBytes,
    ...(ctx.user ? { user: ctx.user } : {}),
  });
  ctx.logger?.debug(
    {
      stack: req.stack.name,
      command: req.command,
      exitCode: result.exitCode,
      durationMs: result.durationMs,
      truncated: result.truncated,
    },
    'terraform command finished',
  );
  if (result.spawnError) {
    ctx.logger?.warn(
      { stack: req.stack.name, command: req.command, error: ctx.redact(result.spawnError, req.stack.name) },
      'terraform could not start',
    );
    // spawn fails alike for a binary it cannot run and a cwd it cannot enter: tell them apart.
    const problem = await inspectStackDir(req.stack.dir);
    if (problem && CWD_PROBLEMS.has(problem.kind))
      throw new StackDirError(req.stack.name, req.stack.dir, problem, stackDirKey(req.stack));
    throw new TerraformBinaryMissingError(ctx.binary);
  }
  if (result.timedOut) throw commandError(ctx, req.stack.name, req.command, result, 'TERRAFORM_TIMEOUT');
  if (result.canceled) throw commandError(ctx, req.stack.name, req.command, result);
  return result;
}

export function commandError(
  ctx: Pick<ExecContext, 'redact'>,
  stack: string,
  command: string,
  result: ProcessResult,
  code: 'TERRAFORM_FAILED' | 'TERRAFORM_TIMEOUT' = 'TERRAFORM_FAILED',
): TerraformError {
  // stderr only: stdout of `show -json` is plan data with secrets in clear.
  return new TerraformError(
    command,
    result.exitCode,
    ctx.redact(errorsFirst(result.stderr, STDERR_TAIL_LINES), stack),
    code,
    driftgateAdvice(result.stderr),
  );
}

/** What a command returns to callers: redacted, with the exit code it ended with. */
export function commandOutput(ctx: Pick<ExecContext, 'redact'>, stack: string, result: ProcessResult): CommandOutput {
  return {
    stdout: ctx.redact(result.stdout, stack),
    stderr: ctx.redact(result.stderr, stack),
    exitCode: result.exitCode ?? -1,
    durationMs: result.durationMs,
    truncated: result.truncated,
  };
}
