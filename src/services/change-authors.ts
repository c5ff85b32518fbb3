import type { GitSources } from '../adapters/git/git-sources.js';
import type { StackConfig } from '../config/schema.js';
import type { Run } from '../domain/run/model.js';
import type { RunStore } from '../ports/store.js';

/** `12345+octocat@users.noreply.github.com` or `octocat@users.noreply.github.com` -> `octocat`. */
export function githubLoginOf(email: string): string | undefined {
  return /^(?:\d+\+)?([A-Za-z0-9-]+)@users\.noreply\.github\.com$/i.exec(email)?.[1];
}

/**
 * Who authored the change a run would apply: for a pending change from Git, the author of every commit
 * between the one last applied and the run's, as their commit email and, for GitHub's noreply
 * addresses, their GitHub login — the keys `approvers.authors` maps to Slack users. Drift has no author.
 * A Git failure is thrown (ExternalServiceError): not knowing the author is a no, decided by the caller.
 */
export async function changeAuthors(deps: { git?: GitSources; store: Pick<RunStore, 'getStack'>; stack(name: string): StackConfig | undefined }, run: Run): Promise<string[]> {
  const stack = deps.stack(run.stack);
  if (run.kind !== 'pending_change' || !run.commitSha || !stack?.git || !deps.git) return [];
  const lastApplied = deps.store.getStack(run.stack)?.lastAppliedCommit;
  const commits = await deps.git.checkout(stack.git).commitsBetween(lastApplied, run.commitSha);
  const ids = commits.flatMap((c) => [c.authorEmail, githubLoginOf(c.authorEmail)]).filter((id): id is string => Boolean(id));
  return [...new Set(ids)];
}
