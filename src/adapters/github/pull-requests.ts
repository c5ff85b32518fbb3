import { z } from 'zod';
import type { OpenPullRequestInput, PullRequestRef } from '../../ports/github.js';
import type { Step } from './commit-to-branch.js';
import { GitHubError } from './github-error.js';
import type { GitHubOctokit } from './octokit.js';

type RepoParams = { owner: string; repo: string };

/** A pull request as GitHub's REST API returns it; lists omit `merged`, so `merged_at` decides. */
export const GitHubPullRequest = z
  .object({
    number: z.number().int(),
    html_url: z.string(),
    state: z.string(),
    merged: z.boolean().optional(),
    merged_at: z.string().nullable().optional(),
    head: z.object({ ref: z.string() }),
    base: z.object({ ref: z.string() }),
    user: z.object({ login: z.string() }).nullable().optional(),
  })
  .transform(
    (pr): PullRequestRef => ({
      number: pr.number,
      url: pr.html_url,
      state: pr.state === 'open' ? 'open' : 'closed',
      merged: pr.merged ?? Boolean(pr.merged_at),
      head: pr.head.ref,
      base: pr.base.ref,
      ...(pr.user?.login ? { author: pr.user.login } : {}),
    }),
  );

const GitHubPullRequests = z.array(GitHubPullRequest);

export async function findOpenPullRequest(
  octokit: GitHubOctokit,
  repo: RepoParams,
  head: string,
  base: string,
  step: Step,
): Promise<PullRequestRef | undefined> {
  // `head` must be `owner:branch`: GitHub ignores a bare branch name and lists every open PR.
  const listed = await step(`find the open PR from ${head} into ${base}`, async () =>
    GitHubPullRequests.parse(
      (await octokit.rest.pulls.list({ ...repo, head: `${repo.owner}:${head}`, base, state: 'open', per_page: 10 }))
        .data,
    ),
  );
  return listed.find((pr) => pr.head === head && pr.base === base);
}

export async function getPullRequest(
  octokit: GitHubOctokit,
  repo: RepoParams,
  number: number,
  step: Step,
): Promise<PullRequestRef | undefined> {
  try {
    return await step(`read PR #${number}`, async () =>
      GitHubPullRequest.parse((await octokit.rest.pulls.get({ ...repo, pull_number: number })).data),
    );
  } catch (err) {
    if (err instanceof GitHubError && err.status === 404) return undefined;
    throw err;
  }
}

export async function openPullRequest(
  octokit: GitHubOctokit,
  repo: RepoParams,
  input: OpenPullRequestInput,
  step: Step,
): Promise<PullRequestRef> {
  const { head, base, title, body } = input;
  const pr = await step(`open a PR from ${head} into ${base}`, async () =>
    GitHubPullRequest.parse(
      (await octokit.rest.pulls.create({ ...repo, head, base, title, body, draft: input.draft ?? false })).data,
    ),
  );
  if (input.labels.length > 0) {
    await step(`add labels to PR #${pr.number}`, () =>
      octokit.rest.issues.addLabels({ ...repo, issue_number: pr.number, labels: input.labels }),
    );
  }
  return pr;
}

export async function pullRequestsOfCommit(
  octokit: GitHubOctokit,
  repo: RepoParams,
  sha: string,
  step: Step,
): Promise<PullRequestRef[]> {
  const listed = await step(
    `list the PRs of commit ${sha.slice(0, 7)}`,
    async () =>
      GitHubPullRequests.parse(
        (await octokit.rest.repos.listPullRequestsAssociatedWithCommit({ ...repo, commit_sha: sha, per_page: 100 }))
          .data,
      ),
    `commit ${sha} does not exist there`,
  );
  return listed.filter((pr) => pr.state === 'open' || pr.merged);
}
