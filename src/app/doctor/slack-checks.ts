import { z } from 'zod';
import type { DriftgateConfig } from '../../config/schema.js';
import { ConfigError } from '../../domain/errors.js';
import { unreachableFix } from '../../domain/network-cause.js';
import { SlackApiError, type SlackApi } from '../../ports/slack-api.js';
import type { SlackSettings } from '../../config/slack-settings.js';
import { type CheckResult, fail, ok, reason, skip } from './check-result.js';

/** The SlackApiError's own words (`auth.test failed: invalid_auth`), without the service prefix. */
const said = (err: unknown) => reason(err).replace(/^slack: /, '');

const AuthTest = z.object({ user: z.string().optional(), user_id: z.string().optional(), team: z.string().optional() });
const ConversationInfo = z.object({
  channel: z.object({ name: z.string().optional(), is_member: z.boolean().optional() }),
});
const Usergroups = z.object({ usergroups: z.array(z.object({ id: z.string(), handle: z.string() })) });

/** What a missing OAuth scope is needed for: added in the app's settings, then the app reinstalled. */
function scopeFix(err: unknown, scopes: string): string | undefined {
  return err instanceof SlackApiError && err.details.slackError === 'missing_scope'
    ? `add the ${scopes} scope(s) under OAuth & Permissions and reinstall the app`
    : undefined;
}

/** Slack on (SLACK_BOT_TOKEN) with a `slack` section, or off with none; anything in between is a mistake. */
export function slackSettingsCheck(
  config: Pick<DriftgateConfig, 'slack'>,
  env: Record<string, string | undefined>,
  settingsFor: (config: { slack?: unknown }, env: Record<string, string | undefined>) => SlackSettings | undefined,
): { settings?: SlackSettings; result?: CheckResult } {
  try {
    const settings = settingsFor(config, env);
    if (settings) return { settings };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const issues = err.issues.map((i) => `${i.path} ${i.message}`).join('; ');
    const fix = err.issues.some((i) => i.path === 'slack')
      ? 'add a slack section with defaultChannel (a channel id), or unset SLACK_BOT_TOKEN'
      : 'set the Slack variables as docs/slack.md says';
    return { result: fail('slack', issues, fix) };
  }
  return {
    result: config.slack
      ? fail(
          'slack',
          'the config has a slack section but SLACK_BOT_TOKEN is not set: nothing is posted',
          'set SLACK_BOT_TOKEN (xoxb-…) and SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN) in the environment',
        )
      : skip('slack', 'not configured (no SLACK_BOT_TOKEN, no slack section): alerts only in `check` output'),
  };
}

/** auth.test, then the bot in every channel the config posts to, then every user group it names. */
export async function checkSlack(
  api: SlackApi,
  config: Pick<DriftgateConfig, 'slack' | 'approvers'>,
  /** Where the API calls go, for the fix when it cannot be reached. */
  host = 'slack.com',
): Promise<CheckResult[]> {
  let bot: z.infer<typeof AuthTest>;
  try {
    bot = AuthTest.parse(await api.call('auth.test', {}));
  } catch (err) {
    // Not reached at all (DNS, egress, a proxy): the token was never looked at, so it is not the fix.
    const unreached = err instanceof SlackApiError && err.details.network !== undefined;
    return [
      fail(
        'slack',
        said(err),
        unreached
          ? unreachableFix(host)
          : 'SLACK_BOT_TOKEN must be the Bot User OAuth Token (xoxb-…) of the installed app; set SLACK_API_URL only for a proxy',
      ),
    ];
  }
  const name = bot.user ? `@${bot.user}` : 'the bot';
  const results = [ok('slack', `auth.test ok: ${name} (${bot.user_id ?? '?'}) in ${bot.team ?? 'the workspace'}`)];
  const slack = config.slack!;
  const channels = [...new Set([slack.defaultChannel, ...slack.channels.map((c) => c.channel)])];
  for (const channel of channels) results.push(await checkChannel(api, channel, name));

  const refs = [
    ...Object.entries(config.approvers?.groups ?? {}).flatMap(([group, g]) =>
      g.usergroups.map((ref) => ({ ref, where: `approvers.groups.${group}.usergroups` })),
    ),
    ...(slack.onCall ? [{ ref: slack.onCall.usergroup, where: 'slack.onCall.usergroup' }] : []),
  ];
  if (refs.length === 0) return results;
  let known: { id: string; handle: string }[];
  try {
    known = Usergroups.parse(await api.call('usergroups.list', {})).usergroups;
  } catch (err) {
    return [
      ...results,
      fail('slack usergroups', said(err), scopeFix(err, 'usergroups:read') ?? 'try again; Slack may be down'),
    ];
  }
  const seen = new Set<string>();
  for (const { ref, where } of refs) {
    if (seen.has(ref)) continue;
    seen.add(ref);
    const handle = ref.replace(/^@/, '').toLowerCase();
    const found = known.find((g) => g.id === ref || g.handle.toLowerCase() === handle);
    results.push(
      found
        ? ok(`slack usergroup ${ref}`, `exists (${found.id})`)
        : fail(
            `slack usergroup ${ref}`,
            'not found in the workspace: it grants nobody',
            `create it in Slack, or fix ${where}`,
          ),
    );
  }
  return results;
}

/** Socket Mode's app-level token: Slack hands out a connection URL for it (the connection is not opened). */
export async function checkSocketMode(appApi: SlackApi): Promise<CheckResult> {
  try {
    await appApi.call('apps.connections.open', {});
    return ok('slack socket mode', 'SLACK_APP_TOKEN accepted (apps.connections.open)');
  } catch (err) {
    return fail(
      'slack socket mode',
      said(err),
      'SLACK_APP_TOKEN must be an app-level token with connections:write (Basic Information, App-Level Tokens), and Socket Mode on',
    );
  }
}

async function checkChannel(api: SlackApi, channel: string, bot: string): Promise<CheckResult> {
  const check = `slack channel ${channel}`;
  try {
    const info = ConversationInfo.parse(await api.call('conversations.info', { channel })).channel;
    const label = info.name ? ` (#${info.name})` : '';
    return info.is_member
      ? ok(check, `${bot} is a member${label}`)
      : fail(
          check,
          `${bot} is not a member${label}: its alerts there fail`,
          `invite it: /invite ${bot} in that channel`,
        );
  } catch (err) {
    const code = err instanceof SlackApiError ? err.details.slackError : undefined;
    if (code === 'channel_not_found') {
      return fail(
        check,
        'not found, or private without the bot in it',
        `check the id in the config (channel details, at the bottom), or invite ${bot} to the private channel`,
      );
    }
    return fail(check, said(err), scopeFix(err, 'channels:read, groups:read') ?? 'try again; Slack may be down');
  }
}
