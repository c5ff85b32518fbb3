/**
 * Git as services see it: a checkout per repository and branch, its head, its commits and a worktree at
 * one commit. adapters/git implements it with the git CLI; a failed command throws GitError
 * (domain/errors.ts).
 */

export interface CommitInfo {
  sha: string;
  author: string;
  authorEmail: string;
  /** The commit's subject line. */
  title: string;
  committedAt: Date;
  /** The pull request the commit came from, when its title says so. */
  prNumber?: number;
}

export interface Worktree {
  /** The repository root checked out at the commit. */
  dir: string;
  sha: string;
  /** Removes the worktree; safe to call twice. */
  release(): Promise<void>;
}

export interface GitCheckout {
  /** Fetches the branch (shallow) and returns its head commit. */
  fetchHead(options?: { signal?: AbortSignal }): Promise<CommitInfo>;
  /** A worktree of exactly `sha`, fetched first if the clone lacks it. */
  checkout(sha: string, options?: { signal?: AbortSignal }): Promise<Worktree>;
  commit(sha: string): Promise<CommitInfo>;
  /**
   * The commits in `to` and not in `from`, newest first, at most 20: what a pending change brings. Just
   * `to` when `from` is unknown or older than the shallow history (its range cannot be told).
   */
  commitsBetween(from: string | undefined, to: string): Promise<CommitInfo[]>;
  /**
   * Every commit in `to` and not in `from`, newest first, however many: who authored a change. The shallow
   * clone is deepened as far as needed; GitError `range_unreadable` when the range still cannot be read
   * whole (`from` is not in the repository, say), never a shorter list.
   */
  commitRange(from: string, to: string): Promise<CommitInfo[]>;
}

export interface GitSourceRef {
  url: string;
  branch: string;
  tokenEnv?: string;
}

/** One GitCheckout per repository and branch. */
export interface GitSources {
  checkout(source: GitSourceRef): GitCheckout;
}
