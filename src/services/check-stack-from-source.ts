import type { StackConfig } from '../config/schema.js';
import { DriftgateError, errorMessage } from '../domain/errors.js';
import { GitError } from '../adapters/git/git-error.js';
import { checkStack, type CheckOptions, type CheckOutcome } from './check-stack.js';
import type { ServiceDeps } from './deps.js';
import type { SourceDeps } from './resolve-stack-at-commit.js';
import { resolveStackAtHead } from './resolve-stack-at-head.js';

/**
 * checkStack at the head of the stack's branch when it comes from Git (the run records that commit), or
 * in its local dir. A failure to fetch or check out is an errored outcome, like a failed plan.
 */
export async function checkStackFromSource(deps: ServiceDeps & Partial<SourceDeps>, stack: StackConfig, options: CheckOptions): Promise<CheckOutcome> {
  if (!stack.git || !deps.git) return checkStack(deps, stack, options);
  let resolved;
  try {
    resolved = await resolveStackAtHead({ git: deps.git }, stack, options.signal ? { signal: options.signal } : {});
  } catch (err) {
    const error = err instanceof DriftgateError ? err.message : `unexpected error: ${errorMessage(err)}`;
    deps.logger.warn({ stack: stack.name, error }, 'checkout failed');
    return { stack: stack.name, status: 'errored', error, stderrTail: err instanceof GitError ? err.stderrTail : '' };
  }
  try {
    return await checkStack(deps, resolved.stack, { ...options, ...(resolved.commitSha ? { commitSha: resolved.commitSha } : {}) });
  } finally {
    await resolved.release().catch((err: unknown) => deps.logger.warn({ stack: stack.name, err }, 'worktree release failed'));
  }
}
