import { z } from 'zod';
import { ConfigError, type ConfigIssue } from '../domain/errors.js';

/** Slack settings come from the environment only: they are secrets, never config-file values. */
const SlackEnv = z.object({
  SLACK_BOT_TOKEN: z.string().regex(/^xoxb-/, "must be a bot token (xoxb-…), from the app's OAuth & Permissions page"),
  SLACK_SIGNING_SECRET: z
    .string()
    .min(
      8,
      "is too short for a signing secret (Slack's are 32 characters): copy it from the app's Basic Information page",
    )
    .optional(),
  SLACK_APP_TOKEN: z
    .string()
    .regex(/^xapp-/, "must be an app-level token (xapp-…), from the app's Basic Information page")
    .optional(),
  SLACK_API_URL: z.url('must be a URL such as https://slack.com/api/').optional(),
});

export type SlackSettings =
  | { mode: 'http'; botToken: string; signingSecret: string; apiUrl?: string }
  | { mode: 'socket'; botToken: string; appToken: string; signingSecret?: string; apiUrl?: string };

/** Read when SLACK_BOT_TOKEN is set: every problem of the SLACK_* variables at once, naming the variable, never the value. */
export function slackEnvIssues(env: Record<string, string | undefined>): ConfigIssue[] {
  if (!env.SLACK_BOT_TOKEN) return [];
  const parsed = SlackEnv.safeParse(env);
  const issues = parsed.success
    ? []
    : parsed.error.issues.map((i) => ({ path: `env.${String(i.path[0])}`, message: i.message }));
  if (!env.SLACK_APP_TOKEN && env.SLACK_SIGNING_SECRET === undefined) {
    issues.push({
      path: 'env.SLACK_SIGNING_SECRET',
      message: 'is required in HTTP mode (set SLACK_APP_TOKEN to use Socket Mode instead)',
    });
  }
  return issues;
}

const SLACK_HEADING = 'Slack is on (SLACK_BOT_TOKEN is set) but cannot start:';

/**
 * Slack is on when SLACK_BOT_TOKEN is set. Socket Mode when SLACK_APP_TOKEN is set (no public URL needed),
 * otherwise the HTTP receiver, which needs SLACK_SIGNING_SECRET to verify every request. A config with
 * Slack on needs a `slack` section saying where alerts go. Every problem, of the environment and of the
 * section, in one ConfigError.
 */
export function slackSettingsFor(
  config: { slack?: unknown },
  env: Record<string, string | undefined>,
): SlackSettings | undefined {
  if (!env.SLACK_BOT_TOKEN) return undefined;
  const issues = slackEnvIssues(env);
  if (!config.slack) {
    issues.push({
      path: 'slack',
      message: 'is required when SLACK_BOT_TOKEN is set: at least slack.defaultChannel, where alerts go',
    });
  }
  const parsed = SlackEnv.safeParse(env);
  if (issues.length || !parsed.success) throw new ConfigError(issues, undefined, SLACK_HEADING);
  const {
    SLACK_BOT_TOKEN: botToken,
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_APP_TOKEN: appToken,
    SLACK_API_URL: apiUrl,
  } = parsed.data;
  const withUrl = apiUrl ? { apiUrl: apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/` } : {};
  if (appToken) return { mode: 'socket', botToken, appToken, ...(signingSecret ? { signingSecret } : {}), ...withUrl };
  // slackEnvIssues required it in HTTP mode.
  return { mode: 'http', botToken, signingSecret: signingSecret!, ...withUrl };
}

/** The host Slack's API calls go to (SLACK_API_URL's, or slack.com's). */
export function slackHost(settings: Pick<SlackSettings, 'apiUrl'>): string {
  return settings.apiUrl ? new URL(settings.apiUrl).host : 'slack.com';
}
