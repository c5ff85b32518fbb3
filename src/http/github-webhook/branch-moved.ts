import { z } from 'zod';
import type { Stack } from '../../domain/stack.js';

/** A branch of a GitHub repository that has new commits: what a push or a merged pull request tells. */
export interface BranchMoved {
  /** `owner/name` as GitHub spells it. */
  repository: string;
  branch: string;
}

const Repository = z.looseObject({ full_name: z.string().min(1) });

/** Only the fields read; GitHub sends far more. */
const PushPayload = z.looseObject({ ref: z.string(), deleted: z.boolean().optional(), repository: Repository });
const PullRequestPayload = z.looseObject({
  action: z.string(),
  pull_request: z.looseObject({ merged: z.boolean().nullish(), base: z.looseObject({ ref: z.string().min(1) }) }),
  repository: Repository,
});

const BRANCH_REF = 'refs/heads/';

export type BranchMovedResult = { moved: BranchMoved } | { ignored: string };

/**
 * What a delivery means for driftgate: a branch with new commits, or why it is ignored. A payload of a
 * known event without the fields read is ignored too, with the reason naming them.
 */
export function branchMoved(event: string, payload: unknown): BranchMovedResult {
  if (event === 'push') {
    const parsed = PushPayload.safeParse(payload);
    if (!parsed.success) return { ignored: `push payload not understood: ${issuePaths(parsed.error)}` };
    const { ref, deleted, repository } = parsed.data;
    if (!ref.startsWith(BRANCH_REF)) return { ignored: `push to ${ref}, not a branch` };
    if (deleted) return { ignored: `branch ${ref.slice(BRANCH_REF.length)} was deleted` };
    return { moved: { repository: repository.full_name, branch: ref.slice(BRANCH_REF.length) } };
  }
  if (event === 'pull_request') {
    const parsed = PullRequestPayload.safeParse(payload);
    if (!parsed.success) return { ignored: `pull_request payload not understood: ${issuePaths(parsed.error)}` };
    const { action, pull_request: pr, repository } = parsed.data;
    if (action !== 'closed' || pr.merged !== true)
      return { ignored: `pull request ${action}${action === 'closed' ? ' without merging' : ''}` };
    return { moved: { repository: repository.full_name, branch: pr.base.ref } };
  }
  return { ignored: `event ${event} is not one driftgate acts on` };
}

function issuePaths(error: z.ZodError): string {
  return error.issues.map((i) => i.path.join('.') || '(root)').join(', ');
}

/** The stacks checked out from that branch of that repository (GitHub names are case-insensitive). */
export function stacksOnBranch(stacks: readonly Stack[], moved: BranchMoved): Stack[] {
  const repository = moved.repository.toLowerCase();
  return stacks.filter((s) => s.git?.repository?.toLowerCase() === repository && s.git.branch === moved.branch);
}
