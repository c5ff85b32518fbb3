/**
 * What driftgate asks of GitHub: a commit of files on a branch, and pull requests. The adapter
 * (adapters/github) talks REST through @octokit/rest; tests point it at a local emulator.
 */
export interface GitHubRepository {
  owner: string;
  name: string;
}

/** A file's full new text, at its path from the repository root (POSIX separators). */
export interface FileChange {
  path: string;
  content: string;
}

export interface PullRequestRef {
  number: number;
  /** The PR's web page (`html_url`). */
  url: string;
  state: 'open' | 'closed';
  merged: boolean;
  /** The branch the PR merges (`head.ref`). */
  head: string;
  base: string;
  /** The GitHub login of who opened it. */
  author?: string;
}

export interface CommitToBranchInput {
  branch: string;
  /** The commit the new one sits on; its tree is the base tree, so only `files` change. */
  parentSha: string;
  files: FileChange[];
  message: string;
}

export interface OpenPullRequestInput {
  head: string;
  base: string;
  title: string;
  body: string;
  labels: string[];
  /** Open it as a draft (config `github.draft`); default false. */
  draft?: boolean;
}

export interface GitHubClient {
  /**
   * Blobs, a tree on the parent's tree, a commit, then the branch created at it or moved to it (forced:
   * the branch is driftgate's own). Returns the new commit's sha.
   */
  commitToBranch(repo: GitHubRepository, input: CommitToBranchInput): Promise<{ sha: string }>;
  /** The open PR from `head` (a branch of the same repository) into `base`, if there is one. */
  findOpenPullRequest(repo: GitHubRepository, head: string, base: string): Promise<PullRequestRef | undefined>;
  /** A PR by number, whatever its state; undefined when the repository has none of that number. */
  getPullRequest(repo: GitHubRepository, number: number): Promise<PullRequestRef | undefined>;
  /** Opens the PR, then adds the labels (GitHub creates labels that do not exist yet). */
  openPullRequest(repo: GitHubRepository, input: OpenPullRequestInput): Promise<PullRequestRef>;
  /** The merged or open PRs a commit belongs to, for the authors of a pending change. */
  pullRequestsOfCommit(repo: GitHubRepository, sha: string): Promise<PullRequestRef[]>;
}
