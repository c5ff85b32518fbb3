import { readEnvironment, type Env } from './environment.js';
import { ConfigError, type ConfigIssue } from '../domain/errors.js';

const SLACK_VARIABLES = ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN', 'SLACK_API_URL'] as const;

export type SlackSettings =
  | { mode: 'http'; botToken: string; signingSecret: string; apiUrl?: string }
  | { mode: 'socket'; botToken: string; appToken: string; signingSecret?: string; apiUrl?: string };

/** Read when SLACK_BOT_TOKEN is set: every problem of the SLACK_* variables at once, naming the variable, never the value. */
export function slackEnvIssues(env: Env): ConfigIssue[] {
  return slackEnvironment(env).issues;
}

/** Slack settings come from the environment only: they are secrets, never config-file values. */
function slackEnvironment(env: Env) {
  const read = readEnvironment(env, SLACK_VARIABLES);
  if (!read.present.has('SLACK_BOT_TOKEN')) return { ...read, issues: [] };
  const issues = [...read.issues];
  const signingSecretGiven = read.present.has('SLACK_SIGNING_SECRET') || read.invalid.has('SLACK_SIGNING_SECRET');
  if (!read.present.has('SLACK_APP_TOKEN') && !signingSecretGiven) {
    issues.push({
      path: 'env.SLACK_SIGNING_SECRET',
      message: 'is required in HTTP mode (set SLACK_APP_TOKEN to use Socket Mode instead)',
    });
  }
  return { ...read, issues };
}

const SLACK_HEADING = 'Slack is on (SLACK_BOT_TOKEN is set) but cannot start:';

/**
 * Slack is on when SLACK_BOT_TOKEN is set. Socket Mode when SLACK_APP_TOKEN is set (no public URL needed),
 * otherwise the HTTP receiver, which needs SLACK_SIGNING_SECRET to verify every request. A config with
 * Slack on needs a `slack` section saying where alerts go. Every problem, of the environment and of the
 * section, in one ConfigError.
 */
export function slackSettingsFor(config: { slack?: unknown }, env: Env): SlackSettings | undefined {
  const { values, present, issues } = slackEnvironment(env);
  if (!present.has('SLACK_BOT_TOKEN')) return undefined;
  if (!config.slack) {
    issues.push({
      path: 'slack',
      message: 'is required when SLACK_BOT_TOKEN is set: at least slack.defaultChannel, where alerts go',
    });
  }
  if (issues.length) throw new ConfigError(issues, undefined, SLACK_HEADING);
  const {
    SLACK_BOT_TOKEN: botToken,
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_APP_TOKEN: appToken,
    SLACK_API_URL: apiUrl,
  } = values;
  const withUrl = apiUrl ? { apiUrl: apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/` } : {};
  if (appToken)
    return { mode: 'socket', botToken: botToken!, appToken, ...(signingSecret ? { signingSecret } : {}), ...withUrl };
  // slackEnvIssues required it in HTTP mode.
  return { mode: 'http', botToken: botToken!, signingSecret: signingSecret!, ...withUrl };
}

/** The host Slack's API calls go to (SLACK_API_URL's, or slack.com's). */
export function slackHost(settings: Pick<SlackSettings, 'apiUrl'>): string {
  return settings.apiUrl ? new URL(settings.apiUrl).host : 'slack.com';
}
