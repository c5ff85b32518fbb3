import { commitUrl, pullRequestUrl, repositoryWebUrl } from '../../domain/git/repository-web-url.js';
import type { Stack } from '../../domain/stack.js';
import type { DomainEvent } from '../../domain/events.js';
import type { GitHubClient } from '../../ports/github.js';
import { GitError, errorMessage, failureReason } from '../../domain/errors.js';
import { storeArtifact } from '../runtime/artifacts.js';
import { commitPullRequests } from '../source/commit-pull-requests.js';
import { checkStack, recordFailedCheck, type CheckOptions, type CheckOutcome } from './check-stack.js';
import type { ServiceDeps } from '../runtime/deps.js';
import type { EventBus } from '../runtime/event-bus.js';
import type { SourceDeps } from '../source/resolve-stack-at-commit.js';
import { resolveStackAtHead } from '../source/resolve-stack-at-head.js';

/** The `commits` artifact: what a pending change brings since the commit last applied, newest first. */
export interface StoredCommits {
  /** The repository on GitHub, when its URL says it is there. */
  webUrl?: string;
  commits: { sha: string; author: string; title: string; prNumber?: number; prUrl?: string; commitUrl?: string }[];
}

/**
 * checkStack at the head of the stack's branch when it comes from Git (the run records that commit), or
 * in its local dir. A failure to fetch or check out is an errored outcome, like a failed plan.
 */
export async function checkStackFromSource(
  deps: ServiceDeps & Partial<SourceDeps> & { github?: GitHubClient },
  stack: Stack,
  options: CheckOptions,
): Promise<CheckOutcome> {
  if (!stack.git || !deps.git) return checkStack(deps, stack, options);
  let resolved: Awaited<ReturnType<typeof resolveStackAtHead>>;
  try {
    resolved = await resolveStackAtHead(
      { git: deps.git, secrets: deps.secrets },
      stack,
      options.signal ? { signal: options.signal } : {},
    );
  } catch (err) {
    const error = failureReason(err);
    const stderrTail = err instanceof GitError ? err.stderrTail : '';
    deps.logger.warn({ stack: stack.name, error }, 'checkout failed');
    // Stopped on purpose (shutdown): not a failure anyone needs to hear about.
    if (options.signal?.aborted) return { stack: stack.name, status: 'errored', error, stderrTail };
    return recordFailedCheck(deps, stack, options, error, stderrTail);
  }
  try {
    const bus = storingCommitsFirst({ ...deps, git: deps.git }, stack);
    const sha = resolved.commitSha;
    const git = deps.git.checkout(stack.git);
    return await checkStack({ ...deps, bus }, resolved.stack, {
      ...options,
      ...(sha ? { commitSha: sha, commitAuthor: async () => (await git.commit(sha)).author } : {}),
    });
  } finally {
    await resolved
      .release()
      .catch((err: unknown) => deps.logger.warn({ stack: stack.name, err }, 'worktree release failed'));
  }
}

/**
 * The bus checkStack publishes on, storing a pending change's commits just before its event goes out:
 * the notifier renders the message on that event and finds them there. A git failure only costs the list.
 */
function storingCommitsFirst(deps: ServiceDeps & SourceDeps & { github?: GitHubClient }, stack: Stack): EventBus {
  const publish = async (event: DomainEvent) => {
    const pending =
      (event.type === 'plan_pending_approval' || event.type === 'plan_refreshed') &&
      event.run.kind === 'pending_change';
    if (pending && event.run.commitSha && stack.git) {
      const from = (await deps.store.getStack(stack.name))?.lastAppliedCommit;
      await storeCommits(deps, stack, event.run.id, from, event.run.commitSha).catch((err: unknown) =>
        deps.logger.warn(
          { stack: stack.name, runId: event.run.id, err: errorMessage(err) },
          'listing the pending commits failed',
        ),
      );
    }
    await deps.bus.publish(event);
  };
  return { on: deps.bus.on.bind(deps.bus), onAny: deps.bus.onAny.bind(deps.bus), publish };
}

async function storeCommits(
  deps: Pick<ServiceDeps, 'artifacts' | 'store' | 'logger'> & SourceDeps & { github?: GitHubClient },
  stack: Stack,
  runId: string,
  from: string | undefined,
  to: string,
): Promise<void> {
  const source = stack.git!;
  const webUrl = repositoryWebUrl(source.url);
  const listed = await deps.git.checkout(source).commitsBetween(from, to);
  // GitHub knows the PR of a commit whose title does not say it (a rebase merge, a direct push).
  const prs = await commitPullRequests(
    deps,
    stack,
    listed.filter((c) => c.prNumber === undefined).map((c) => c.sha),
  );
  const commits = listed.map((c) => {
    const pr = prs.get(c.sha);
    const prNumber = c.prNumber ?? pr?.number;
    const prUrl = pr?.url ?? (webUrl && prNumber !== undefined ? pullRequestUrl(webUrl, prNumber) : undefined);
    return {
      sha: c.sha,
      author: c.author,
      title: c.title,
      ...(prNumber !== undefined ? { prNumber } : {}),
      ...(prUrl ? { prUrl } : {}),
      ...(webUrl ? { commitUrl: commitUrl(webUrl, c.sha) } : {}),
    };
  });
  const stored: StoredCommits = { ...(webUrl ? { webUrl } : {}), commits };
  await storeArtifact(deps, runId, 'commits', JSON.stringify(stored));
}
