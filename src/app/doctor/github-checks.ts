import type { DriftgateConfig } from '../../config/schema.js';
import { ConfigError } from '../../domain/errors.js';
import { githubRepositoryName } from '../../domain/git/repository-web-url.js';
import type { GitHubSettings } from '../../adapters/github/env.js';
import { GitHubError } from '../../adapters/github/github-error.js';
import { MINT_TOKEN, type RepositoryAccess } from '../../adapters/github/repository-access.js';
import type { GitHubRepository } from '../../ports/github.js';
import { type CheckResult, fail, ok, reason, skip } from './check-result.js';

export interface GitHubCheckDeps {
  settingsFor(env: Record<string, string | undefined>): GitHubSettings | undefined;
  access(settings: GitHubSettings, repo: GitHubRepository): Promise<RepositoryAccess>;
}

/** The GitHub repositories the config's stacks come from (`owner/name`), for remediation PRs and webhooks. */
export function githubRepositories(config: Pick<DriftgateConfig, 'stacks' | 'source'>): string[] {
  const top = config.source?.git;
  const names = [
    ...(top ? [top.repository ?? githubRepositoryName(top.url)] : []),
    ...config.stacks.map((s) => s.git?.repository),
  ];
  return [...new Set(names.filter((n): n is string => Boolean(n)))].sort();
}

const TOKEN_FIX =
  'give the token write access: a classic token needs the repo scope; a fine-grained one Contents and Pull requests read and write on the repository';
const APP_FIX =
  "in the GitHub App's settings give it Contents and Pull requests read & write, then accept the new permissions on its installation";

function accessFix(err: unknown, settings: GitHubSettings): string {
  const status = err instanceof GitHubError ? err.status : undefined;
  const app = settings.auth.type === 'app';
  if (app && status === 404 && err instanceof GitHubError && err.operation === MINT_TOKEN)
    return "set GITHUB_APP_INSTALLATION_ID to the App's installation on this account (the number at the end of its Configure page's address)";
  if (status === 401)
    return app
      ? "set GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY to the App's id and a current private key"
      : 'GITHUB_TOKEN is wrong, expired or revoked: make a new token and set it';
  if (status === 404)
    return app
      ? 'check the repository name (source.git), and install the App on it (App settings, Install App, Repository access)'
      : 'check the repository name (source.git), and that the token may see it (a fine-grained token lists its repositories)';
  if (status === undefined) return `check that ${settings.apiUrl} can be reached from here (GITHUB_API_URL)`;
  return app ? APP_FIX : TOKEN_FIX;
}

/** GitHub credentials parse, and can push and open pull requests in each repository the stacks come from. */
export async function checkGitHub(
  config: Pick<DriftgateConfig, 'stacks' | 'source'>,
  env: Record<string, string | undefined>,
  deps: GitHubCheckDeps,
): Promise<CheckResult[]> {
  let settings: GitHubSettings | undefined;
  try {
    settings = deps.settingsFor(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.issues.map((i) =>
      fail(
        'github',
        `${i.path}: ${i.message}`,
        'set GITHUB_TOKEN, or all three GITHUB_APP_* variables, as docs/remediation.md says',
      ),
    );
  }
  const repositories = githubRepositories(config);
  if (!settings) {
    return [
      skip(
        'github',
        `no GITHUB_TOKEN or GitHub App set: remediation PRs are off${repositories.length ? ` for ${repositories.join(', ')}` : ''}`,
      ),
    ];
  }
  const how =
    settings.auth.type === 'token' ? 'GITHUB_TOKEN' : `GitHub App installation ${settings.auth.installationId}`;
  if (repositories.length === 0)
    return [
      skip('github', `${how} set, but no stack comes from a GitHub repository (source.git): nothing to check it on`),
    ];
  const results: CheckResult[] = [];
  for (const full of repositories) {
    const [owner, name] = full.split('/') as [string, string];
    const check = `github ${full}`;
    let access: RepositoryAccess;
    try {
      access = await deps.access(settings, { owner, name });
    } catch (err) {
      results.push(fail(check, reason(err).replace(/^github: /, ''), accessFix(err, settings)));
      continue;
    }
    const perms = access.installationPermissions;
    if (perms && (perms.contents !== 'write' || perms.pull_requests !== 'write')) {
      results.push(
        fail(
          check,
          `${how} has contents: ${perms.contents ?? 'none'}, pull_requests: ${perms.pull_requests ?? 'none'}; remediation PRs need write on both`,
          APP_FIX,
        ),
      );
    } else if (!access.canPush) {
      results.push(fail(check, `${how} can read ${full} but not push to it`, TOKEN_FIX));
    } else {
      const scopes = access.scopes ? ` (scopes: ${access.scopes.join(', ') || 'none'})` : '';
      results.push(ok(check, `${how} can push and open pull requests${scopes}`));
    }
  }
  return results;
}
