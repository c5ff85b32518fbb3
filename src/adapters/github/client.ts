import type { GitHubClient, GitHubRepository } from '../../ports/github.js';
import { commitToBranch, type Step } from './commit-to-branch.js';
import type { GitHubSettings } from './env.js';
import { secretMask, toGitHubError } from './github-error.js';
import { createOctokit, type GitHubClientOptions } from './octokit.js';
import { findOpenPullRequest, getPullRequest, openPullRequest, pullRequestsOfCommit } from './pull-requests.js';

export { GitHubError } from './github-error.js';
export type { GitHubClientOptions, GitHubLogger } from './octokit.js';

/**
 * The GitHub port over REST (@octokit/rest). Settings and options are all it reads: never process.env.
 * Every failure is a GitHubError (an ExternalServiceError) whose message names the operation and the fix.
 */
export function createGitHubClient(settings: GitHubSettings, options: GitHubClientOptions = {}): GitHubClient {
  const mask = secretMask(settings.auth);
  const octokit = createOctokit(settings, options, mask);

  function scope(repo: GitHubRepository): { params: { owner: string; repo: string }; step: Step } {
    const step: Step = async (what, call, missing) => {
      const operation = `${what} in ${repo.owner}/${repo.name}`;
      try {
        return await call();
      } catch (err) {
        throw toGitHubError(err, {
          operation,
          repo,
          apiUrl: settings.apiUrl,
          auth: settings.auth.type,
          mask,
          ...(missing ? { missing } : {}),
        });
      }
    };
    return { params: { owner: repo.owner, repo: repo.name }, step };
  }

  return {
    commitToBranch(repo, input) {
      const { params, step } = scope(repo);
      return commitToBranch(octokit, params, input, step);
    },
    findOpenPullRequest(repo, head, base) {
      const { params, step } = scope(repo);
      return findOpenPullRequest(octokit, params, head, base, step);
    },
    getPullRequest(repo, number) {
      const { params, step } = scope(repo);
      return getPullRequest(octokit, params, number, step);
    },
    openPullRequest(repo, input) {
      const { params, step } = scope(repo);
      return openPullRequest(octokit, params, input, step);
    },
    pullRequestsOfCommit(repo, sha) {
      const { params, step } = scope(repo);
      return pullRequestsOfCommit(octokit, params, sha, step);
    },
  };
}
