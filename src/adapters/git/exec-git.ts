import { execa } from 'execa';

export interface GitExecRequest {
  args: string[];
  cwd: string;
  /** The whole child environment: nothing is inherited. */
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface GitExecResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs `git` once; never throws for a bad exit (callers decide what a code means). */
export type GitExec = (request: GitExecRequest) => Promise<GitExecResult>;

export const execGit: GitExec = async (request) => {
  const result = await execa('git', request.args, {
    cwd: request.cwd,
    env: request.env,
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
    timeout: request.timeoutMs > 0 ? request.timeoutMs : undefined,
    cancelSignal: request.signal,
    maxBuffer: 16 * 1024 * 1024,
  });
  return {
    exitCode: result.exitCode,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
    timedOut: Boolean(result.timedOut),
  };
};

/** The last `lines` lines of git's stderr: enough to see why, short enough for a Slack message. */
export function stderrTail(stderr: string, lines = 15): string {
  return stderr.trimEnd().split('\n').slice(-lines).join('\n');
}
