import { DEFAULT_GITHUB_API_URL, readEnvironment, type Env } from '../../config/environment.js';
import { ConfigError, type ConfigIssue } from '../../domain/errors.js';

export const DEFAULT_API_URL = DEFAULT_GITHUB_API_URL;

export type GitHubAuth =
  | { type: 'token'; token: string }
  | { type: 'app'; appId: string; privateKey: string; installationId: number };

export interface GitHubSettings {
  /** REST API base without a trailing slash: https://api.github.com, or https://<host>/api/v3 on GitHub Enterprise Server. */
  apiUrl: string;
  auth: GitHubAuth;
}

const APP_VARS = ['GITHUB_APP_ID', 'GITHUB_APP_PRIVATE_KEY', 'GITHUB_APP_INSTALLATION_ID'] as const;

/**
 * GitHub is on when GITHUB_TOKEN or the GitHub App variables (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY,
 * GITHUB_APP_INSTALLATION_ID) are set; exactly one of the two. Errors name the variable and the rule,
 * never the value.
 */
export function githubSettingsFor(env: Env): GitHubSettings | undefined {
  const read = readEnvironment(env, ['GITHUB_TOKEN', ...APP_VARS, 'GITHUB_API_URL']);
  const set = (name: 'GITHUB_TOKEN' | (typeof APP_VARS)[number]) => read.present.has(name);
  const appVars = APP_VARS.filter(set);
  if (!set('GITHUB_TOKEN') && appVars.length === 0) return undefined;

  const issues: ConfigIssue[] = [];
  if (set('GITHUB_TOKEN') && appVars.length > 0) {
    issues.push({
      path: 'env.GITHUB_TOKEN',
      message: `is set together with ${appVars.join(', ')}: authenticate with a token or a GitHub App, not both`,
    });
  } else if (appVars.length > 0) {
    for (const name of APP_VARS.filter((n) => !set(n))) {
      issues.push({
        path: `env.${name}`,
        message: 'is not set; a GitHub App needs GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY and GITHUB_APP_INSTALLATION_ID',
      });
    }
  }
  issues.push(...read.issues);
  if (issues.length) throw new ConfigError(issues);

  const vars = read.values;
  const apiUrl = (vars.GITHUB_API_URL ?? DEFAULT_API_URL).replace(/\/+$/, '');
  if (vars.GITHUB_TOKEN) return { apiUrl, auth: { type: 'token', token: vars.GITHUB_TOKEN } };
  return {
    apiUrl,
    auth: {
      type: 'app',
      appId: vars.GITHUB_APP_ID!,
      privateKey: vars.GITHUB_APP_PRIVATE_KEY!,
      installationId: vars.GITHUB_APP_INSTALLATION_ID!,
    },
  };
}
