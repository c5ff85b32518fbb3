import { ExternalServiceError } from '../../domain/errors.js';

/**
 * Why a git command failed, as far as driftgate can tell without reading git's prose: `branch_not_found`
 * comes from `ls-remote --exit-code` (exit 2), `commit_not_found` from `cat-file -e`.
 */
export type GitFailure = 'repo_unreachable' | 'branch_not_found' | 'commit_not_found' | 'timeout' | 'failed';

export interface GitErrorDetails {
  reason: GitFailure;
  /** The command as run, masked: `git fetch --depth=50 origin …`. */
  command: string;
  exitCode: number | undefined;
  /** Last lines of git's stderr, masked. */
  stderrTail: string;
  /** The repository URL, credentials masked. */
  url: string;
  branch?: string;
  sha?: string;
}

/** A git command failed. Every field is already masked: a token never reaches a message. */
export class GitError extends ExternalServiceError {
  readonly reason: GitFailure;
  readonly command: string;
  readonly exitCode: number | undefined;
  readonly stderrTail: string;
  readonly url: string;
  readonly branch: string | undefined;
  readonly sha: string | undefined;

  constructor(details: GitErrorDetails) {
    const retriable = details.reason === 'repo_unreachable' || details.reason === 'timeout' || details.reason === 'failed';
    super('git', describe(details), retriable);
    this.reason = details.reason;
    this.command = details.command;
    this.exitCode = details.exitCode;
    this.stderrTail = details.stderrTail;
    this.url = details.url;
    this.branch = details.branch;
    this.sha = details.sha;
  }
}

function describe(d: GitErrorDetails): string {
  const where = `repository ${d.url}${d.branch ? ` (branch ${d.branch})` : ''}`;
  const head =
    d.reason === 'branch_not_found'
      ? `branch ${d.branch ?? '?'} does not exist in ${d.url}`
      : d.reason === 'commit_not_found'
        ? `commit ${d.sha ?? '?'} is not on branch ${d.branch ?? '?'} of ${d.url}, even after fetching it`
        : d.reason === 'repo_unreachable'
          ? `cannot read ${where}: it does not exist, or the credentials are missing or wrong`
          : d.reason === 'timeout'
            ? `\`${d.command}\` timed out on ${where}`
            : `\`${d.command}\` exited with code ${d.exitCode ?? 'unknown'} on ${where}`;
  return d.stderrTail ? `${head}:\n${d.stderrTail}` : head;
}
