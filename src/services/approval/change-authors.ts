import type { CommitInfo, GitCheckout, GitSources } from '../../ports/git.js';
import type { Stack } from '../../domain/stack.js';
import type { Run } from '../../domain/run/model.js';
import { AuthorsUnknownError, DriftgateError, errorMessage, type ExternalServiceError } from '../../domain/errors.js';
import type { RunStore } from '../../ports/store.js';
import { type CommitPullRequestsDeps, commitPullRequests } from '../source/commit-pull-requests.js';

/** `12345+octocat@users.noreply.github.com` or `octocat@users.noreply.github.com` -> `octocat`. */
export function githubLoginOf(email: string): string | undefined {
  return /^(?:\d+\+)?([A-Za-z0-9-]+)@users\.noreply\.github\.com$/i.exec(email)?.[1];
}

export type ChangeAuthorsDeps = {
  git?: GitSources;
  store: Pick<RunStore, 'getStack' | 'listRuns'>;
  stack(name: string): Stack | undefined;
} & CommitPullRequestsDeps;

/**
 * Who authored the change a run would apply: the author of every commit between the one last applied and
 * the run's, as their commit email and, for GitHub's noreply addresses, their GitHub login, and with
 * GitHub configured the login of whoever opened the PR each commit came through: the keys
 * `approvers.authors` maps to Slack users. A stack from Git without a baseline has no commit known to be
 * applied, so every commit since driftgate first saw the stack counts. Drift at the commit last applied,
 * and a stack not from Git, have no author.
 * Fails closed: when the answer would be incomplete (a range git cannot read, GitHub failing) it throws
 * AuthorsUnknownError, whose message says why and what to do, and never returns a shorter list.
 */
export async function changeAuthors(deps: ChangeAuthorsDeps, run: Run): Promise<string[]> {
  const stack = deps.stack(run.stack);
  if (!stack?.git || !deps.git) return [];
  const lastApplied = (await deps.store.getStack(run.stack))?.lastAppliedCommit;
  if (lastApplied && lastApplied === run.commitSha) return [];
  const commits = await commitsOfChange(deps, deps.git.checkout(stack.git), stack, run, lastApplied);
  let prs: Awaited<ReturnType<typeof commitPullRequests>>;
  try {
    // Who opened the PR a commit came through wrote the change too, whoever the commit names.
    prs = await commitPullRequests(
      deps,
      stack,
      commits.map((c) => c.sha),
      { complete: true },
    );
  } catch (err) {
    throw unknown(deps, stack, err, () => [
      'GitHub did not answer who opened the pull requests of this change, and the author of a change may not approve it.',
      'Please try again in a minute.',
    ]);
  }
  const ids = commits
    .flatMap((c) => [c.authorEmail, githubLoginOf(c.authorEmail), prs.get(c.sha)?.author])
    .filter((id): id is string => Boolean(id));
  return [...new Set(ids)];
}

/** The commits the run would apply: since the last applied one or, without one, since the stack was first seen. */
async function commitsOfChange(
  deps: ChangeAuthorsDeps,
  git: GitCheckout,
  stack: Stack,
  run: Run,
  lastApplied: string | undefined,
): Promise<CommitInfo[]> {
  const name = stack.name;
  const sha = run.commitSha;
  if (!sha) {
    throw new AuthorsUnknownError(
      `Nothing was approved: this plan of ${name} does not say which commit it ran at, so driftgate cannot tell who authored it. Run \`/drift check ${name}\` for a new plan.`,
    );
  }
  if (lastApplied) {
    try {
      return await git.commitRange(lastApplied, sha);
    } catch (err) {
      throw unknown(deps, stack, err, (retriable) => [
        `driftgate could not read every commit between the last applied commit ${short(lastApplied)} and this plan's commit ${short(sha)}, so it cannot tell who authored this change.`,
        retriable
          ? 'Please try again in a minute.'
          : `If ${short(lastApplied)} is no longer on branch ${stack.git?.branch}, record the commit that is applied with \`driftgate baseline ${name} --commit SHA\`, then run \`/drift check ${name}\`.`,
      ]);
    }
  }
  // No baseline: every plan is classified drift, yet the code may have moved since the stack was first
  // seen; whoever wrote any of it may be the author of this change. Runs are never deleted.
  const first = (await deps.store.listRuns({ stack: name })).findLast((r) => r.commitSha)?.commitSha ?? sha;
  // First seen at this very commit, with changes: nothing tells which of the commits before it the plan
  // would apply, so nobody can be cleared of having written them.
  if (first === sha) {
    throw new AuthorsUnknownError(
      `Nothing was approved: driftgate first saw ${name} at this plan's commit ${short(sha)} and no commit of it is known to be applied, so it cannot tell which commits this change brings or who wrote them. Record the commit that is applied with \`driftgate baseline ${name} --commit SHA\` (or \`driftgate baseline ${name}\` when the code at the head is what is live), then run \`/drift check ${name}\`.`,
    );
  }
  try {
    return [...(await git.commitRange(first, sha)), await git.commit(first)];
  } catch (err) {
    throw unknown(deps, stack, err, (retriable) => [
      `${name} has no baseline (no commit known to be applied), and driftgate could not read the commits since it first saw the stack at ${short(first)}, so it cannot tell who authored this change.`,
      retriable
        ? 'Please try again in a minute.'
        : `Record the commit that is applied with \`driftgate baseline ${name}\` (or \`--commit SHA\`), then run \`/drift check ${name}\` for a plan that names its authors.`,
    ]);
  }
}

const short = (sha: string) => sha.slice(0, 12);

/** The refusal for a failure of git or GitHub; anything else is a bug and goes on up. */
function unknown(
  deps: CommitPullRequestsDeps,
  stack: Stack,
  err: unknown,
  explain: (retriable: boolean) => string[],
): unknown {
  if (!(err instanceof DriftgateError && err.code === 'EXTERNAL_SERVICE')) return err;
  deps.logger.warn({ stack: stack.name, error: errorMessage(err) }, 'the authors of a change could not be read');
  return new AuthorsUnknownError(
    ['Nothing was approved:', ...explain((err as ExternalServiceError).retriable)].join(' '),
    {
      cause: err,
    },
  );
}
