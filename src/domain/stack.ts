/** How driftgate acts on a stack's drift: alert only, apply minor changes itself, or apply everything itself. */
export const MODES = ['alert', 'auto-minor', 'auto-apply'] as const;
export type Mode = (typeof MODES)[number];

/** A stack after discovery and defaults: everything the runner needs, dirs absolute. */
export interface Stack {
  name: string;
  /** Where the config sets the stack, for messages: `stacks[2]`, or `discover[0]` for a discovered one. */
  configKey?: string;
  /** Absolute path of the stack's root module. */
  dir: string;
  schedule: string;
  vars: Record<string, unknown>;
  varFiles: string[];
  env: Record<string, string>;
  workspace?: string;
  backendConfig: Record<string, string | number | boolean>;
  environment?: string;
  labels: string[];
  mode: Mode;
  /** The worker pool that plans and applies it when terraform runs on workers (`default` unless set). */
  pool: string;
  /** `emptyState: plan`: a plan creating every resource into an empty state is a change, not a finding. */
  planEmptyState?: boolean;
  /** See StackSettings.allowFrequentAutoApply in config/schema.ts. */
  allowFrequentAutoApply?: boolean;
  /**
   * Set when the stack comes from a Git repository: `dir` (and relative `varFiles`) mean nothing until
   * services/source/resolve-stack-at-head.ts checks out a commit and points them into that worktree.
   */
  git?: StackGitSource;
  /** Set on a Git-sourced stack checked out at a commit: the commit `dir` holds (a worker checks out the same). */
  commitSha?: string;
}

/** A stack's Git source: the repository, and where the stack's root module is inside it. */
export interface StackGitSource {
  url: string;
  branch: string;
  tokenEnv?: string;
  /** `owner/name` on GitHub: configured, or read from a GitHub URL; undefined for other hosts. */
  repository?: string;
  /** Path of the root module relative to the repository root (subpath joined), POSIX separators. */
  path: string;
  /** varFiles as written in the config: relative ones are relative to the checked-out stack dir. */
  varFiles: string[];
}
