import { stackDirMessage, type StackDirProblem } from './stack-dir.js';

/**
 * Typed errors. Callers branch on `code`, never on message text. `message` is written for the person
 * who has to fix the cause: it says what was wrong and where.
 */
export type DriftgateErrorCode =
  | 'CONFIG_INVALID'
  | 'TERRAFORM_BINARY_MISSING'
  | 'TERRAFORM_FAILED'
  | 'TERRAFORM_TIMEOUT'
  | 'PLAN_JSON_INVALID'
  | 'PROVIDER_SCHEMA_INVALID'
  | 'STACK_NOT_FOUND'
  | 'INVALID_TRANSITION'
  | 'ARTIFACT_STORE_FAILED'
  | 'ARTIFACT_INTEGRITY'
  | 'STALE_PLAN'
  | 'BACKEND_CREDENTIALS_REJECTED'
  | 'EXTERNAL_SERVICE'
  | 'REMEDIATION_UNAVAILABLE'
  | 'REMEDIATION_ANSWER_REFUSED'
  | 'AUTHORS_UNKNOWN'
  | 'SHUTTING_DOWN'
  | 'STACK_DIR_UNUSABLE'
  | 'DATA_DIR_UNWRITABLE'
  | 'LISTEN_FAILED'
  | 'CHANGE_EVENT_INVALID'
  | 'NO_WORKER_RESULT'
  | 'WORKER_LOST'
  | 'NO_STATE'
  | 'SERVE_ALREADY_RUNNING';

export class DriftgateError extends Error {
  readonly code: DriftgateErrorCode;
  constructor(code: DriftgateErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/**
 * The base of an error class that is its code and a message for the person (with the cause, where there is
 * one): the class is still one per code, for `instanceof`, and named in logs by its own name.
 */
function errorWithCode(code: DriftgateErrorCode) {
  return class extends DriftgateError {
    constructor(message: string, options?: { cause?: unknown }) {
      super(code, message, options);
    }
  };
}

export interface ConfigIssue {
  /** Dotted path into the config, e.g. `stacks[2].schedule`. Empty for the document root. */
  path: string;
  message: string;
}

export class ConfigError extends DriftgateError {
  readonly issues: ConfigIssue[];
  readonly file: string | undefined;
  /** `heading`: the first line, when the issues are not (all) the config file's, e.g. the environment's. */
  constructor(issues: ConfigIssue[], file?: string, heading?: string) {
    super('CONFIG_INVALID', formatConfigIssues(issues, file, heading));
    this.issues = issues;
    this.file = file;
  }
}

export function formatConfigIssues(issues: ConfigIssue[], file?: string, heading?: string): string {
  const head = heading ?? (file ? `invalid config ${file}:` : 'invalid config:');
  return [head, ...issues.map((i) => `  ${i.path ? `${i.path}: ` : ''}${i.message}`)].join('\n');
}

export class TerraformBinaryMissingError extends DriftgateError {
  readonly binary: string;
  readonly configKey: string;
  constructor(binary: string, configKey = 'terraform.binary') {
    super(
      'TERRAFORM_BINARY_MISSING',
      `terraform binary "${binary}" was not found or is not executable (config key ${configKey}); install it or set ${configKey} to its path`,
    );
    this.binary = binary;
    this.configKey = configKey;
  }
}

/** A stack's directory cannot be used (missing, a file, unreadable, read-only, no *.tf files). */
export class StackDirError extends DriftgateError {
  constructor(
    readonly stackName: string,
    readonly dir: string,
    readonly problem: StackDirProblem,
    readonly configKey: string,
  ) {
    super('STACK_DIR_UNUSABLE', `${configKey}: ${stackDirMessage(stackName, dir, problem)}`);
  }
}

/**
 * The data dir (store, artifacts, scratch space) cannot be made or written by this process: typically a
 * container's uid beside a repository or ConfigMap mounted read-only.
 */
export class DataDirError extends DriftgateError {
  /** What is wrong, in a line: the dir, why, for whom, and what chose it. */
  readonly problem: string;
  /** What to do about it. */
  readonly fix: string;
  constructor(
    readonly dir: string,
    /** The system's code: EACCES, EROFS, EPERM, ENOTDIR… */
    readonly reason: string,
    /** What chose the dir (the config key, DRIFTGATE_DATA_DIR, the default). */
    readonly setBy: string,
    readonly uid: number | undefined,
  ) {
    const why =
      reason === 'EROFS'
        ? 'on a read-only filesystem'
        : reason === 'ENOTDIR'
          ? 'not a directory'
          : reason === 'EACCES' || reason === 'EPERM'
            ? 'permission denied'
            : reason;
    const problem = `the data dir ${dir} cannot be created or written (${why}${uid === undefined ? '' : ` for uid ${uid}`}); it was chosen by ${setBy}`;
    const fix =
      'give driftgate a directory it may write: set dataDir in the config, or the DRIFTGATE_DATA_DIR environment variable, to one; ' +
      'in a container, a volume: docker run -v driftgate-data:/var/lib/driftgate -e DRIFTGATE_DATA_DIR=/var/lib/driftgate …';
    super('DATA_DIR_UNWRITABLE', `${problem}.\n${fix[0]!.toUpperCase()}${fix.slice(1)}`);
    this.problem = problem;
    this.fix = fix;
  }
}

/** A port driftgate was told to listen on cannot be had (in use, privileged, not an address of this host). */
export class ListenError extends DriftgateError {
  constructor(
    readonly host: string,
    readonly port: number,
    /** The system's code: EADDRINUSE, EACCES, EADDRNOTAVAIL… */
    readonly reason: string,
    /** Where the address was set, e.g. `--port`, `PORT`, `METRICS_ADDRESS`. */
    readonly setting: string,
  ) {
    super('LISTEN_FAILED', listenMessage(host, port, reason, setting));
  }
}

function listenMessage(host: string, port: number, reason: string, setting: string): string {
  switch (reason) {
    case 'EADDRINUSE':
      return `port ${port} is already in use (${setting}): stop what listens there or choose another port`;
    case 'EACCES':
      return `port ${port} needs privileges driftgate does not have (${setting}): choose a port above 1023`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this machine (${setting})`;
    default:
      return `cannot listen on ${host}:${port} (${setting}): ${reason}`;
  }
}

/** A terraform command exited badly. `stderrTail` is already redacted of known secrets. */
export class TerraformError extends DriftgateError {
  readonly command: string;
  readonly exitCode: number | undefined;
  readonly stderrTail: string;
  constructor(
    command: string,
    exitCode: number | undefined,
    stderrTail: string,
    code: 'TERRAFORM_FAILED' | 'TERRAFORM_TIMEOUT' = 'TERRAFORM_FAILED',
    /** What to do where terraform's own advice does not apply to driftgate (see driftgateAdvice). */
    advice?: string,
  ) {
    const what = code === 'TERRAFORM_TIMEOUT' ? 'timed out' : `exited with code ${exitCode ?? 'unknown'}`;
    super(code, `terraform ${command} ${what}${stderrTail ? `:\n${stderrTail}` : ''}${advice ? `\n\n${advice}` : ''}`);
    this.command = command;
    this.exitCode = exitCode;
    this.stderrTail = stderrTail;
  }
}

/** The plan would create every resource: the stack has no state where driftgate looks (see findsNoState). */
export class NoStateError extends DriftgateError {
  constructor(stack: string, workspace: string | undefined, creates: number) {
    super(
      'NO_STATE',
      `no state found for ${stack} in its backend (workspace ${workspace ?? 'default'}): all ${creates} resource(s) would be created. ` +
        'Is the backend or workspace right (its backend block, backendConfig, workspace in driftgate.yml)? ' +
        'If the stack was never applied, apply it once; driftgate checks it for drift from then on.',
    );
  }
}

export class PlanJsonError extends DriftgateError {
  readonly issues: ConfigIssue[];
  constructor(issues: ConfigIssue[]) {
    super('PLAN_JSON_INVALID', formatConfigIssues(issues).replace('invalid config:', 'invalid plan JSON:'));
    this.issues = issues;
  }
}

export class StackNotFoundError extends DriftgateError {
  readonly stackName: string;
  readonly suggestions: string[];
  constructor(stack: string, suggestions: string[] = []) {
    super(
      'STACK_NOT_FOUND',
      `no stack named "${stack}"${suggestions.length ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}?` : ''}`,
    );
    this.stackName = stack;
    this.suggestions = suggestions;
  }
}

/** A glob (`stage/*`) that matches no stack: says so, with the corrected glob and the prefixes that exist. */
export class NoStackMatchesError extends DriftgateError {
  readonly pattern: string;
  readonly suggestions: string[];
  readonly prefixes: string[];
  constructor(pattern: string, suggestions: string[], prefixes: string[]) {
    const didYouMean = suggestions.length ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}?` : '';
    const shown = prefixes.length > 12 ? [...prefixes.slice(0, 12), `and ${prefixes.length - 12} more`] : prefixes;
    const where = prefixes.some((p) => p.endsWith('/')) ? 'the stacks are under' : 'the stacks are';
    super(
      'STACK_NOT_FOUND',
      `no stack matches "${pattern}"${didYouMean}${prefixes.length ? ` (${where} ${shown.join(', ')})` : ' (no stacks are configured)'}`,
    );
    this.pattern = pattern;
    this.suggestions = suggestions;
    this.prefixes = prefixes;
  }
}

export class InvalidTransitionError extends DriftgateError {
  constructor(
    readonly runId: string,
    readonly from: string,
    readonly to: string,
  ) {
    super('INVALID_TRANSITION', `run ${runId} cannot move from ${from} to ${to}`);
  }
}

/** The artifact store could not be reached or written: retriable, the run is errored, nothing is lost. */
export class ArtifactStoreError extends errorWithCode('ARTIFACT_STORE_FAILED') {}

export class ArtifactIntegrityError extends DriftgateError {
  constructor(
    readonly key: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super('ARTIFACT_INTEGRITY', `artifact ${key} has sha256 ${actual}, expected ${expected}: refusing to use it`);
  }
}

/** terraform refused a saved plan because the state changed after it was made: nothing was applied. */
export class StalePlanError extends DriftgateError {
  constructor(
    message: string,
    readonly stderrTail = '',
  ) {
    super('STALE_PLAN', message);
  }
}

/**
 * terraform could not read (or lock) the state because the backend refused the credentials the saved plan
 * carries (expired or revoked): it stopped before changing anything. A fresh plan gets fresh credentials.
 */
export class BackendCredentialsError extends DriftgateError {
  constructor(
    message: string,
    readonly stderrTail = '',
  ) {
    super('BACKEND_CREDENTIALS_REJECTED', message);
  }
}

/** A remediation PR cannot be opened for this run; the message says why and what to do instead. */
export class RemediationUnavailableError extends errorWithCode('REMEDIATION_UNAVAILABLE') {}

/**
 * The code written for a drift (a worker's answer, or this process's own) may not be committed: it names
 * files outside the stack's `.tf` files, or is malformed. `refused` holds the offending paths as they may
 * be shown (masked, cut), for the audit; the message is for the person who asked.
 */
export class RemediationAnswerRefusedError extends DriftgateError {
  constructor(
    message: string,
    readonly refused: readonly { path: string; why: string }[] = [],
  ) {
    super('REMEDIATION_ANSWER_REFUSED', message);
  }
}

/**
 * Who authored a change cannot be told, so nobody may approve it yet. The message is for the person who
 * clicked: why, and what to do next (try again, or `driftgate baseline`).
 */
export class AuthorsUnknownError extends errorWithCode('AUTHORS_UNKNOWN') {}

/** Another service (Slack, GitHub, S3, PagerDuty) failed; the operation may be retried. */
export class ExternalServiceError extends DriftgateError {
  constructor(
    readonly service: string,
    message: string,
    readonly retriable: boolean,
    options?: { cause?: unknown },
  ) {
    super('EXTERNAL_SERVICE', `${service}: ${message}`, options);
  }
}

/**
 * The store did not answer (Postgres down, restarting, or cut off): the call did nothing, and the same call
 * can be made again once it answers. What a person is told: try again, nothing was recorded.
 */
export class StoreUnavailableError extends ExternalServiceError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super('store', `does not answer (${reason}); nothing was recorded`, true, options);
  }
}

/**
 * Why a git command failed, as far as driftgate can tell without reading git's prose: `branch_not_found`
 * comes from `ls-remote --exit-code` (exit 2), `commit_not_found` from `cat-file -e`.
 */
export type GitFailure =
  | 'repo_unreachable'
  | 'branch_not_found'
  | 'commit_not_found'
  | 'range_unreadable'
  | 'timeout'
  | 'failed';

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
  /** The other end of a range of commits (`from..sha`). */
  from?: string;
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
    const retriable =
      details.reason === 'repo_unreachable' || details.reason === 'timeout' || details.reason === 'failed';
    super('git', describeGitFailure(details), retriable);
    this.reason = details.reason;
    this.command = details.command;
    this.exitCode = details.exitCode;
    this.stderrTail = details.stderrTail;
    this.url = details.url;
    this.branch = details.branch;
    this.sha = details.sha;
  }
}

function describeGitFailure(d: GitErrorDetails): string {
  const where = `repository ${d.url}${d.branch ? ` (branch ${d.branch})` : ''}`;
  const head =
    d.reason === 'branch_not_found'
      ? `branch ${d.branch ?? '?'} does not exist in ${d.url}`
      : d.reason === 'commit_not_found'
        ? `commit ${d.sha ?? '?'} is not on branch ${d.branch ?? '?'} of ${d.url}, even after fetching it`
        : d.reason === 'range_unreadable'
          ? `the commits between ${d.from ?? '?'} and ${d.sha ?? '?'} cannot all be read from branch ${d.branch ?? '?'} of ${d.url}, even after fetching its whole history`
          : d.reason === 'repo_unreachable'
            ? `cannot read ${where}: it does not exist, or the credentials are missing or wrong`
            : d.reason === 'timeout'
              ? `\`${d.command}\` timed out on ${where}`
              : `\`${d.command}\` exited with code ${d.exitCode ?? 'unknown'} on ${where}`;
  return d.stderrTail ? `${head}:\n${d.stderrTail}` : head;
}

/** What a person is told of a failure: a DriftgateError's own message, anything else as unexpected. */
export function failureReason(err: unknown): string {
  return err instanceof DriftgateError ? err.message : `unexpected error: ${errorMessage(err)}`;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The worker running an op for the control plane stopped answering (its lease ran out) and the op may not
 * run again: an apply, which may have changed part of the infrastructure.
 */
export class WorkerLostError extends errorWithCode('WORKER_LOST') {}
