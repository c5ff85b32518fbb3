import type { GitHubRepository } from '../../ports/github.js';
import type { GitHubSettings } from './env.js';
import { secretMask, toGitHubError } from './github-error.js';
import { createOctokit, type GitHubClientOptions } from './octokit.js';

/** The operation a GitHubError names when an App's installation token could not be minted. */
export const MINT_TOKEN = 'mint an installation token';

/** What the configured credentials may do in one repository, as GitHub says it. */
export interface RepositoryAccess {
  /** `permissions.push` of the repository as the credentials see it. */
  canPush: boolean;
  /** A classic token's scopes (`X-OAuth-Scopes`); absent for fine-grained tokens and Apps. */
  scopes?: string[];
  /** A GitHub App installation token's permissions, e.g. `{ contents: 'write', pull_requests: 'write' }`. */
  installationPermissions?: Record<string, string>;
}

/**
 * Reads the repository with the configured credentials (for an App, after minting an installation token),
 * for `driftgate doctor`. Throws a GitHubError whose message says what to fix, never a secret.
 */
export async function repositoryAccess(
  settings: GitHubSettings,
  repo: GitHubRepository,
  options: GitHubClientOptions = {},
): Promise<RepositoryAccess> {
  const mask = secretMask(settings.auth);
  const octokit = createOctokit(settings, { retries: 0, ...options }, mask);
  const context = { repo, apiUrl: settings.apiUrl, auth: settings.auth.type, mask };
  let installationPermissions: Record<string, string> | undefined;
  if (settings.auth.type === 'app') {
    try {
      const token = (await octokit.auth({ type: 'installation' })) as { permissions?: Record<string, string> };
      installationPermissions = token.permissions ?? {};
    } catch (err) {
      throw toGitHubError(err, { ...context, operation: MINT_TOKEN });
    }
  }
  try {
    const answer = await octokit.rest.repos.get({ owner: repo.owner, repo: repo.name });
    const scopes = answer.headers['x-oauth-scopes'];
    return {
      canPush: answer.data.permissions?.push === true,
      ...(typeof scopes === 'string'
        ? {
            scopes: scopes
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
          }
        : {}),
      ...(installationPermissions ? { installationPermissions } : {}),
    };
  } catch (err) {
    throw toGitHubError(err, { ...context, operation: `read ${repo.owner}/${repo.name}` });
  }
}
