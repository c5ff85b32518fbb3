import type { GitSources } from '../ports/git.js';
import type { Stack } from '../domain/stack.js';
import type { Run } from '../domain/run/model.js';
import type { RunStore } from '../ports/store.js';
import { type CommitPullRequestsDeps, commitPullRequests } from './commit-pull-requests.js';

/** `12345+octocat@users.noreply.github.com` or `octocat@users.noreply.github.com` -> `octocat`. */
export function githubLoginOf(email: string): string | undefined {
  return /^(?:\d+\+)?([A-Za-z0-9-]+)@users\.noreply\.github\.com$/i.exec(email)?.[1];
}

/**
 * Who authored the change a run would apply: for a pending change from Git, the author of every commit
 * between the one last applied and the run's, as their commit email and, for GitHub's noreply
 * addresses, their GitHub login, and with GitHub configured the login of whoever opened the PR each
 * commit came through — the keys `approvers.authors` maps to Slack users. Drift has no author.
 * A Git failure is thrown (ExternalServiceError): not knowing the author is a no, decided by the caller.
 */
export async function changeAuthors(
  deps: {
    git?: GitSources;
    store: Pick<RunStore, 'getStack'>;
    stack(name: string): Stack | undefined;
  } & CommitPullRequestsDeps,
  run: Run,
): Promise<string[]> {
  const stack = deps.stack(run.stack);
  if (run.kind !== 'pending_change' || !run.commitSha || !stack?.git || !deps.git) return [];
  const lastApplied = deps.store.getStack(run.stack)?.lastAppliedCommit;
  const commits = await deps.git.checkout(stack.git).commitsBetween(lastApplied, run.commitSha);
  // Who opened the PR a commit came through wrote the change too, whoever the commit names.
  const prs = await commitPullRequests(
    deps,
    stack,
    commits.map((c) => c.sha),
  );
  const ids = commits
    .flatMap((c) => [c.authorEmail, githubLoginOf(c.authorEmail), prs.get(c.sha)?.author])
    .filter((id): id is string => Boolean(id));
  return [...new Set(ids)];
}
