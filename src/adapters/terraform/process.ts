import { setPriority } from 'node:os';
import { execa } from 'execa';
import { TailBuffer } from './tail-buffer.js';

export interface ProcessRequest {
  file: string;
  args: string[];
  cwd: string;
  /** The complete child environment; process.env is not added. */
  env: Record<string, string>;
  /** 0 means no timeout. */
  timeoutMs: number;
  /** Between SIGINT and SIGKILL. */
  killGraceMs: number;
  signal?: AbortSignal;
  /** Bytes of each stream kept (the tail); Infinity keeps everything. */
  stdoutLimit: number;
  stderrLimit: number;
  /** Run as this user and group (supplementary groups dropped); the caller holds the privilege to switch. */
  user?: { uid: number; gid: number };
  /** Each chunk of output as it comes (the terraform container streams them to its worker). */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
}

export interface ProcessResult {
  stdout: string;
  stderr: string;
  /** Undefined when the process was ended by a signal or never started. */
  exitCode: number | undefined;
  durationMs: number;
  truncated: boolean;
  timedOut: boolean;
  canceled: boolean;
  /** Set when the process could not be started (ENOENT, EACCES...). */
  spawnError?: string;
}

/** Runs one command: here (runProcess), or in the terraform container beside a worker (container-client.ts). */
export type ProcessRunner = (req: ProcessRequest) => Promise<ProcessResult>;

/**
 * Process groups of running children. Children run detached (their own group) so a timeout can also end
 * what terraform started (provisioner shells, their `sleep`s); detached children are not killed by execa
 * when we exit, so we do that here.
 */
const liveGroups = new Set<number>();
let exitHookInstalled = false;
function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) signalGroup(group, 'SIGTERM');
  });
}

/**
 * terraform gets a lower CPU priority than driftgate itself: a sweep of plans can keep every core busy,
 * and the process that must answer Slack within 3 seconds should not wait behind them. Plans lose nothing
 * when the machine has cores to spare. Providers terraform starts inherit it.
 */
const TERRAFORM_NICENESS = 10;

function lowerPriority(pid: number): void {
  try {
    setPriority(pid, TERRAFORM_NICENESS);
  } catch {
    // Not permitted here, or the child is already gone: it runs at normal priority.
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Runs one command. Timeouts and aborts send SIGINT (terraform then stops and releases its state lock),
 * SIGKILL after the grace period, and finally SIGKILL to whatever is left of the process group.
 * Output is streamed into tail buffers: execa's maxBuffer would kill the process instead.
 */
export async function runProcess(req: ProcessRequest): Promise<ProcessResult> {
  const stdout = new TailBuffer(req.stdoutLimit);
  const stderr = new TailBuffer(req.stderrLimit);
  const child = execa(req.file, req.args, {
    cwd: req.cwd,
    env: req.env,
    extendEnv: false,
    stdin: 'ignore',
    buffer: false,
    reject: false,
    detached: true,
    timeout: req.timeoutMs > 0 ? req.timeoutMs : undefined,
    killSignal: 'SIGINT',
    forceKillAfterDelay: req.killGraceMs,
    cancelSignal: req.signal,
    ...(req.user ? { uid: req.user.uid, gid: req.user.gid } : {}),
  });
  const pid = child.pid;
  if (pid !== undefined) {
    trackGroup(pid);
    lowerPriority(pid);
  }
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout.push(chunk);
    req.onOutput?.('stdout', chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr.push(chunk);
    req.onOutput?.('stderr', chunk);
  });
  const result = await child;
  if (pid !== undefined) {
    liveGroups.delete(pid);
    if (result.timedOut || result.isCanceled) signalGroup(pid, 'SIGKILL');
  }
  const neverStarted = result.failed && result.exitCode === undefined && !result.isTerminated;
  return {
    stdout: stdout.text(),
    stderr: stderr.text(),
    exitCode: result.exitCode,
    durationMs: Math.round(result.durationMs),
    truncated: stdout.truncated || stderr.truncated,
    timedOut: result.timedOut,
    canceled: result.isCanceled,
    ...(neverStarted ? { spawnError: result.shortMessage } : {}),
  };
}
