import { z } from 'zod';
import { ConfigError } from '../domain/errors.js';

/** Slack settings come from the environment only: they are secrets, never config-file values. */
const SlackEnv = z.object({
  SLACK_BOT_TOKEN: z.string().regex(/^xoxb-/, 'must be a bot token (xoxb-…)'),
  SLACK_SIGNING_SECRET: z.string().min(8).optional(),
  SLACK_APP_TOKEN: z
    .string()
    .regex(/^xapp-/, 'must be an app-level token (xapp-…)')
    .optional(),
  SLACK_API_URL: z.url().optional(),
});

export type SlackSettings =
  | { mode: 'http'; botToken: string; signingSecret: string; apiUrl?: string }
  | { mode: 'socket'; botToken: string; appToken: string; signingSecret?: string; apiUrl?: string };

/**
 * Slack is on when SLACK_BOT_TOKEN is set. Socket Mode when SLACK_APP_TOKEN is set (no public URL needed),
 * otherwise the HTTP receiver, which needs SLACK_SIGNING_SECRET to verify every request.
 */
export function slackSettingsFromEnv(env: Record<string, string | undefined>): SlackSettings | undefined {
  if (!env.SLACK_BOT_TOKEN) return undefined;
  const parsed = SlackEnv.safeParse(env);
  if (!parsed.success) {
    // Name the variable and the rule, never the value.
    throw new ConfigError(parsed.error.issues.map((i) => ({ path: `env.${String(i.path[0])}`, message: i.message })));
  }
  const {
    SLACK_BOT_TOKEN: botToken,
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_APP_TOKEN: appToken,
    SLACK_API_URL: apiUrl,
  } = parsed.data;
  const withUrl = apiUrl ? { apiUrl: apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/` } : {};
  if (appToken) return { mode: 'socket', botToken, appToken, ...(signingSecret ? { signingSecret } : {}), ...withUrl };
  if (!signingSecret) {
    throw new ConfigError([
      {
        path: 'env.SLACK_SIGNING_SECRET',
        message: 'is required in HTTP mode (set SLACK_APP_TOKEN to use Socket Mode instead)',
      },
    ]);
  }
  return { mode: 'http', botToken, signingSecret, ...withUrl };
}

/** The Slack settings for a config: Slack on (SLACK_BOT_TOKEN set) needs a `slack` section saying where alerts go. */
export function slackSettingsFor(
  config: { slack?: unknown },
  env: Record<string, string | undefined>,
): SlackSettings | undefined {
  const settings = slackSettingsFromEnv(env);
  if (settings && !config.slack) {
    throw new ConfigError([
      {
        path: 'slack',
        message: 'is required when SLACK_BOT_TOKEN is set: at least slack.defaultChannel, where alerts go',
      },
    ]);
  }
  return settings;
}
