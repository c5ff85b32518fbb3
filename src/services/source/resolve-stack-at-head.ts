import type { CommitInfo } from '../../ports/git.js';
import type { Stack } from '../../domain/stack.js';
import { resolveStackAtCommit, type ResolvedStack, type SourceDeps } from './resolve-stack-at-commit.js';

/**
 * For a Git-sourced stack: fetches its branch, checks out the head commit, and returns the stack with
 * `dir` in that worktree plus the commit. A fresh worktree has no `.terraform`, so every check re-runs
 * `init` (providers come from the shared plugin cache). A local stack comes back unchanged.
 */
export async function resolveStackAtHead(
  deps: SourceDeps,
  stack: Stack,
  options: { signal?: AbortSignal } = {},
): Promise<ResolvedStack & { commit?: CommitInfo }> {
  if (!stack.git) return resolveStackAtCommit(deps, stack, '', options);
  const commit = await deps.git.checkout(stack.git).fetchHead(options);
  return { ...(await resolveStackAtCommit(deps, stack, commit.sha, options)), commit };
}
