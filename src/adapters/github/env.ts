import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import { ConfigError, type ConfigIssue } from '../../domain/errors.js';

export const DEFAULT_API_URL = 'https://api.github.com';

export type GitHubAuth =
  | { type: 'token'; token: string }
  | { type: 'app'; appId: string; privateKey: string; installationId: number };

export interface GitHubSettings {
  /** REST API base without a trailing slash: https://api.github.com, or https://<host>/api/v3 on GitHub Enterprise Server. */
  apiUrl: string;
  auth: GitHubAuth;
}

const APP_VARS = ['GITHUB_APP_ID', 'GITHUB_APP_PRIVATE_KEY', 'GITHUB_APP_INSTALLATION_ID'] as const;

/** An unset variable and an empty one (`GITHUB_TOKEN=` in a compose file) mean the same. */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** Secret stores often keep a PEM on one line with literal `\n`s. */
const pem = (text: string) => text.replace(/\\n/g, '\n').trim();

function isPrivateKey(text: string): boolean {
  try {
    return createPrivateKey(text).asymmetricKeyType === 'rsa';
  } catch {
    return false;
  }
}

const GitHubEnv = z.object({
  GITHUB_TOKEN: optional(z.string().regex(/^\S+$/, 'must be a GitHub token (no spaces or line breaks)')),
  GITHUB_APP_ID: optional(
    z.string().regex(/^(\d+|Iv[0-9A-Za-z.]+)$/, "must be the GitHub App's numeric App ID (or its client ID, Iv…)"),
  ),
  GITHUB_APP_PRIVATE_KEY: optional(
    z
      .string()
      .transform(pem)
      .refine(
        isPrivateKey,
        "must be the GitHub App's RSA private key in PEM (-----BEGIN RSA PRIVATE KEY-----…), with line breaks or literal \\n",
      ),
  ),
  GITHUB_APP_INSTALLATION_ID: optional(
    z
      .string()
      .regex(/^[1-9]\d*$/, "must be the App installation's numeric id")
      .transform(Number),
  ),
  GITHUB_API_URL: optional(
    z.url({
      protocol: /^https?$/,
      error: 'must be an http(s) URL, e.g. https://github.example.com/api/v3 for GitHub Enterprise Server',
    }),
  ),
});

/**
 * GitHub is on when GITHUB_TOKEN or the GitHub App variables (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY,
 * GITHUB_APP_INSTALLATION_ID) are set; exactly one of the two. Errors name the variable and the rule,
 * never the value.
 */
export function githubSettingsFor(env: Record<string, string | undefined>): GitHubSettings | undefined {
  const set = (name: string) => env[name] !== undefined && env[name] !== '';
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
  const parsed = GitHubEnv.safeParse(env);
  if (!parsed.success) {
    // zod's own issue messages are ours (every rule above has one); the path is the variable's name.
    issues.push(...parsed.error.issues.map((i) => ({ path: `env.${String(i.path[0])}`, message: i.message })));
  }
  if (issues.length || !parsed.success) throw new ConfigError(issues);

  const vars = parsed.data;
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
