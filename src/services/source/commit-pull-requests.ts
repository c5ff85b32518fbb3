/**
 * The pull request each commit of a pending change came in through, asked of GitHub: a rebase merge or
 * a direct push leaves no `(#N)` in the title, and the PR's author is an author of the change even when
 * the commits carry someone else's name. For links it is best effort: a GitHub failure costs the links, not
 * the check. For who may approve (`complete`), every commit is looked up and a failure is thrown.
 */
import type { Stack } from '../../domain/stack.js';
import { errorMessage } from '../../domain/errors.js';
import type { GitHubClient, PullRequestRef } from '../../ports/github.js';
import { repositoryOf } from './github-repository.js';
import type { Logger } from '../../ports/logger.js';

/** A pending change rarely brings more; past this many commits the rest go without a lookup. */
export const MAX_PR_LOOKUPS = 20;

export interface CommitPullRequestsDeps {
  github?: GitHubClient;
  logger: Pick<Logger, 'warn'>;
}

/** The merged PR into the stack's branch for each commit that has one; empty without GitHub. */
export async function commitPullRequests(
  deps: CommitPullRequestsDeps,
  stack: Stack,
  shas: readonly string[],
  options: { complete?: boolean } = {},
): Promise<Map<string, PullRequestRef>> {
  const found = new Map<string, PullRequestRef>();
  const repo = repositoryOf(stack);
  if (!deps.github || !repo || !stack.git) return found;
  for (const sha of options.complete ? shas : shas.slice(0, MAX_PR_LOOKUPS)) {
    try {
      const prs = await deps.github.pullRequestsOfCommit(repo, sha);
      const merged = prs.find((pr) => pr.merged && pr.base === stack.git!.branch) ?? prs.find((pr) => pr.merged);
      if (merged) found.set(sha, merged);
    } catch (err) {
      if (options.complete) throw err;
      deps.logger.warn(
        { stack: stack.name, sha, error: errorMessage(err) },
        'looking up the pull request of a commit failed',
      );
      break; // GitHub is down or refuses: the next commits would fail the same way
    }
  }
  return found;
}
