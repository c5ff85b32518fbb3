import type { Stack } from '../../domain/stack.js';
import { failureReason } from '../../domain/errors.js';
import { applySavedPlan, type ApplyOutcome } from './apply-saved-plan.js';
import type { ServiceDeps } from '../runtime/deps.js';
import { resolveStackAtCommit, type SourceDeps } from '../source/resolve-stack-at-commit.js';

/**
 * applySavedPlan in a checkout of the commit the run planned at, so the apply and its verification plan see
 * the code that was reviewed, whatever the branch holds now. A local stack is applied as it is.
 */
export async function applyAtPlannedCommit(
  deps: ServiceDeps & Partial<SourceDeps>,
  stack: Stack,
  runId: string,
  actor: string,
  signal?: AbortSignal,
): Promise<ApplyOutcome> {
  if (!stack.git || !deps.git) return applySavedPlan(deps, stack, runId, actor, signal);
  const sha = (await deps.store.getRun(runId))?.commitSha;
  if (!sha)
    return {
      status: 'refused',
      code: 'not_applyable',
      reason: `run ${runId} has no commit, so it cannot be applied to ${stack.name}, which comes from Git`,
    };
  let resolved: Awaited<ReturnType<typeof resolveStackAtCommit>>;
  try {
    resolved = await resolveStackAtCommit({ git: deps.git, secrets: deps.secrets }, stack, sha);
  } catch (err) {
    const reason = failureReason(err);
    return { status: 'refused', code: 'not_started', reason: `nothing was applied: ${reason}` };
  }
  try {
    return await applySavedPlan(deps, resolved.stack, runId, actor, signal);
  } finally {
    await resolved
      .release()
      .catch((err: unknown) => deps.logger.warn({ stack: stack.name, err }, 'worktree release failed'));
  }
}
