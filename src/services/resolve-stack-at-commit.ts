import { isAbsolute, join, resolve } from 'node:path';
import type { GitSources } from '../ports/git.js';
import type { Stack } from '../domain/stack.js';

export interface SourceDeps {
  git: GitSources;
}

/** A stack pointed into a checkout of one commit; `release()` removes the checkout. */
export interface ResolvedStack {
  stack: Stack;
  /** Set for a Git-sourced stack: the commit its `dir` holds. */
  commitSha?: string;
  release(): Promise<void>;
}

/** A local stack as it is; a Git-sourced one in a fresh worktree of `sha`, `dir` and varFiles inside it. */
export async function resolveStackAtCommit(
  deps: SourceDeps,
  stack: Stack,
  sha: string,
  options: { signal?: AbortSignal } = {},
): Promise<ResolvedStack> {
  if (!stack.git) return { stack, release: async () => undefined };
  const worktree = await deps.git.checkout(stack.git).checkout(sha, options);
  const dir = join(worktree.dir, stack.git.path);
  const varFiles = stack.git.varFiles.map((f) => (isAbsolute(f) ? f : resolve(dir, f)));
  return { stack: { ...stack, dir, varFiles }, commitSha: sha, release: worktree.release };
}
