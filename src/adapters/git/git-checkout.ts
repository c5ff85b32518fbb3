import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createMutex } from '../terraform/mutex.js';
import { GitError, type GitFailure } from '../../domain/errors.js';
import type { CommitInfo, GitCheckout } from '../../ports/git.js';
import { COMMIT_FORMAT, parseCommitInfo, parseCommitLog } from './commit-info.js';
import { gitCredentials } from './git-credentials.js';
import { execGit, stderrTail, type GitExec, type GitExecResult } from './exec-git.js';
import type { Logger } from '../../ports/logger.js';

/** Commits kept by each fetch: enough to check out a run's commit after the branch moved on a little. */
const FETCH_DEPTH = 50;
/** Commits commitsBetween lists at most: a message names a few, the rest is in the repository. */
const MAX_COMMITS_BETWEEN = 20;
/** How far commitRange first deepens the shallow history before it fetches the whole of it. */
const DEEPEN_BY = 200;
const FULL_SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

export type GitLogger = Pick<Logger, 'debug'>;

export interface GitCheckoutOptions {
  url: string;
  branch: string;
  /** Holds the bare clone (`repo.git`) and the worktrees; one per repository, reused across checks. */
  dir: string;
  /** Base environment of every git child; process.env is never read. */
  env: Record<string, string | undefined>;
  /** HTTPS token, read by the caller from the variable `tokenEnv` names. */
  token?: string;
  timeoutMs?: number;
  logger?: GitLogger;
  /** The process runner; tests wrap it to see every argv. */
  exec?: GitExec;
}

/**
 * One bare clone per repository under `dir`, fetched shallowly and shared by every check; each plan gets
 * a `git worktree add --detach` of its exact commit, removed on release. A worktree rather than `git
 * archive`: no tar in the pipeline, `export-ignore` attributes do not silently drop files, and the result
 * is a real checkout that later steps (a remediation branch) can diff. Commands that write to the clone
 * run one at a time; concurrent callers of fetchHead share the fetch in flight.
 */
export function createGitCheckout(options: GitCheckoutOptions): GitCheckout {
  const exec = options.exec ?? execGit;
  const repo = join(options.dir, 'repo.git');
  const worktrees = join(options.dir, 'worktrees');
  const base = Object.fromEntries(Object.entries(options.env).filter((e): e is [string, string] => e[1] !== undefined));
  const credentials = gitCredentials(options.url, options.token, base);
  const env = { ...base, ...credentials.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true', LC_ALL: 'C' };
  const url = credentials.mask(options.url);
  const { branch } = options;
  const remoteRef = `refs/remotes/origin/${branch}`;
  const mutex = createMutex();
  let ready: Promise<void> | undefined;
  let inflight: Promise<CommitInfo> | undefined;

  const run = async (args: string[], signal?: AbortSignal): Promise<GitExecResult> => {
    const started = performance.now();
    const result = await exec({
      args,
      cwd: options.dir,
      env,
      timeoutMs: options.timeoutMs ?? 5 * 60_000,
      ...(signal ? { signal } : {}),
    });
    options.logger?.debug(
      { git: credentials.mask(args.join(' ')), exitCode: result.exitCode, ms: Math.round(performance.now() - started) },
      'git',
    );
    return result;
  };
  const fail = (reason: GitFailure, args: string[], result: GitExecResult, sha?: string): GitError =>
    new GitError({
      reason: result.timedOut ? 'timeout' : reason,
      command: credentials.mask(['git', ...args].join(' ')),
      exitCode: result.exitCode,
      stderrTail: credentials.mask(stderrTail(result.stderr)),
      url,
      branch,
      ...(sha ? { sha } : {}),
    });
  const must = async (args: string[], signal?: AbortSignal): Promise<string> => {
    const result = await run(args, signal);
    if (result.exitCode !== 0) throw fail('failed', args, result);
    return result.stdout;
  };
  const gitDir = (...args: string[]) => [`--git-dir=${repo}`, ...args];

  const ensureRepo = (): Promise<void> => {
    ready ??= (async () => {
      await mkdir(worktrees, { recursive: true, mode: 0o700 });
      if (!existsSync(join(repo, 'HEAD'))) {
        await must(['init', '--bare', '--quiet', repo]);
        await must(gitDir('remote', 'add', 'origin', options.url));
      }
      // Worktrees a crashed process left behind whose dirs are gone.
      await must(gitDir('worktree', 'prune'));
    })().catch((err: unknown) => {
      ready = undefined;
      throw err;
    });
    return ready;
  };

  const commit = async (sha: string): Promise<CommitInfo> => {
    const args = gitDir('log', '-1', '--no-walk', `--format=${COMMIT_FORMAT}`, sha, '--');
    const result = await run(args);
    const info = result.exitCode === 0 ? parseCommitInfo(result.stdout) : undefined;
    if (!info) throw fail('commit_not_found', args, result, sha);
    return info;
  };

  const fetchBranch = async (signal?: AbortSignal): Promise<CommitInfo> => {
    await ensureRepo();
    const args = gitDir(
      'fetch',
      `--depth=${FETCH_DEPTH}`,
      '--no-tags',
      '--quiet',
      'origin',
      `+refs/heads/${branch}:${remoteRef}`,
    );
    const fetched = await run(args, signal);
    if (fetched.exitCode !== 0) {
      // `--exit-code` makes ls-remote exit 2 when the repository answered but has no such ref.
      const probe = await run(gitDir('ls-remote', '--exit-code', '--heads', 'origin', `refs/heads/${branch}`), signal);
      throw fail(probe.exitCode === 2 ? 'branch_not_found' : 'repo_unreachable', args, fetched);
    }
    const sha = (await must(gitDir('rev-parse', '--verify', `${remoteRef}^{commit}`))).trim();
    return commit(sha);
  };

  const hasCommit = async (sha: string) => (await run(gitDir('cat-file', '-e', `${sha}^{commit}`))).exitCode === 0;
  /** The commits whose parents a shallow fetch left out: a walk that reaches one may have stopped short. */
  const shallowCommits = async () =>
    new Set((await readFile(join(repo, 'shallow'), 'utf8').catch(() => '')).split('\n').filter(Boolean));

  /** `from..to` in full, or undefined while the clone lacks an end or the walk ran into the shallow edge. */
  const readRange = async (from: string, to: string): Promise<CommitInfo[] | undefined> => {
    if (!(await hasCommit(from)) || !(await hasCommit(to))) return undefined;
    const commits = parseCommitLog(await must(gitDir('log', `--format=${COMMIT_FORMAT}%x1e`, `${from}..${to}`, '--')));
    const shallow = await shallowCommits();
    return commits.some((c) => shallow.has(c.sha)) ? undefined : commits;
  };

  const rangeError = (from: string, to: string, last?: { args: string[]; result: GitExecResult }): GitError =>
    new GitError({
      reason: 'range_unreadable',
      command: credentials.mask(['git', ...(last?.args ?? ['log', `${from}..${to}`])].join(' ')),
      exitCode: last?.result.exitCode,
      stderrTail: last ? credentials.mask(stderrTail(last.result.stderr)) : '',
      url,
      branch,
      sha: to,
      from,
    });

  return {
    fetchHead(fetchOptions = {}) {
      inflight ??= mutex
        .run(() => fetchBranch(fetchOptions.signal))
        .finally(() => {
          inflight = undefined;
        });
      return inflight;
    },

    async checkout(sha, checkoutOptions = {}) {
      if (!FULL_SHA.test(sha)) {
        throw new GitError({
          reason: 'commit_not_found',
          command: 'git worktree add',
          exitCode: undefined,
          stderrTail: 'not a full commit sha',
          url,
          branch,
          sha,
        });
      }
      await ensureRepo();
      const dir = join(worktrees, `${sha.slice(0, 12)}-${randomBytes(4).toString('hex')}`);
      await mutex.run(async () => {
        if (!(await hasCommit(sha))) {
          // Older than the shallow history: fetch that commit alone (protocol v2 servers allow it).
          const args = gitDir('fetch', '--depth=1', '--no-tags', '--quiet', 'origin', sha);
          const fetched = await run(args, checkoutOptions.signal);
          if (fetched.exitCode !== 0 || !(await hasCommit(sha))) throw fail('commit_not_found', args, fetched, sha);
        }
        await must(gitDir('worktree', 'add', '--detach', '--quiet', dir, sha), checkoutOptions.signal);
      });
      let released = false;
      return {
        dir,
        sha,
        async release() {
          if (released) return;
          released = true;
          await mutex.run(async () => {
            const removed = await run(gitDir('worktree', 'remove', '--force', dir));
            if (removed.exitCode !== 0) {
              await rm(dir, { recursive: true, force: true });
              await run(gitDir('worktree', 'prune'));
            }
          });
        },
      };
    },

    commit,

    async commitsBetween(from, to) {
      await ensureRepo();
      if (!from || !FULL_SHA.test(from) || !FULL_SHA.test(to) || !(await hasCommit(from))) return [await commit(to)];
      const args = gitDir('log', `-n${MAX_COMMITS_BETWEEN}`, `--format=${COMMIT_FORMAT}%x1e`, `${from}..${to}`, '--');
      return parseCommitLog(await must(args));
    },

    async commitRange(from, to) {
      if (!FULL_SHA.test(from) || !FULL_SHA.test(to)) throw rangeError(from, to);
      await ensureRepo();
      return mutex.run(async () => {
        const branchRef = `+refs/heads/${branch}:${remoteRef}`;
        // Deeper and deeper: a little more of the branch, all of it, then the two ends by name.
        const fetches = [
          gitDir('fetch', `--deepen=${DEEPEN_BY}`, '--no-tags', '--quiet', 'origin', branchRef),
          gitDir('fetch', '--unshallow', '--no-tags', '--quiet', 'origin', branchRef),
          gitDir('fetch', '--no-tags', '--quiet', 'origin', from, to),
        ];
        let failed: { args: string[]; result: GitExecResult } | undefined;
        for (const args of [undefined, ...fetches]) {
          if (args) {
            // --deepen and --unshallow refuse a clone that is already complete: nothing left to fetch.
            if (args.some((a) => a === '--unshallow' || a.startsWith('--deepen')) && !existsSync(join(repo, 'shallow')))
              continue;
            const result = await run(args);
            if (result.exitCode !== 0) failed = { args, result };
          }
          const commits = await readRange(from, to);
          if (commits) return commits;
        }
        throw rangeError(from, to, failed);
      });
    },
  };
}
