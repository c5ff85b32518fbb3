import { createHmac } from 'node:crypto';

/** Headers Slack sends with a request: `v0=` HMAC-SHA256 of `v0:<timestamp>:<body>` with the signing secret. */
export function slackSignature(
  secret: string,
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return { 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature };
}

/** POSTs a form-encoded body to a Bolt endpoint as Slack would, signed with `secret`. */
export async function postSigned(
  url: string,
  secret: string,
  form: Record<string, string>,
  options: { timestamp?: number } = {},
) {
  const body = new URLSearchParams(form).toString();
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...slackSignature(secret, body, options.timestamp),
    },
    body,
  });
}

/** A slash command body as Slack sends it. */
export function slashCommand(text: string, user = 'U111', extra: Record<string, string> = {}): Record<string, string> {
  return {
    token: 'legacy-verification-token',
    team_id: 'T111',
    team_domain: 'example',
    channel_id: 'C111',
    channel_name: 'ops',
    user_id: user,
    user_name: user.toLowerCase(),
    command: '/drift',
    text,
    api_app_id: 'A111',
    response_url: 'http://127.0.0.1:9/unused',
    trigger_id: '123.456.abc',
    ...extra,
  };
}

/** The form of an interaction (a click, a modal submission) by `user`, as Slack POSTs it. */
export function interactionForm(
  user: string,
  triggerId: string,
  payload: Record<string, unknown>,
): Record<string, string> {
  return {
    payload: JSON.stringify({
      team: { id: 'T111', domain: 'example' },
      user: { id: user, username: user.toLowerCase(), team_id: 'T111' },
      api_app_id: 'A111',
      token: 'legacy-verification-token',
      trigger_id: triggerId,
      ...payload,
    }),
  };
}

/** A block_actions payload of a button clicked in a message (`channel`, `ts`), or in App Home. */
export function buttonClick(
  actionId: string,
  value: string,
  where: { responseUrl: string; channel: string; ts: string } | { inHome: true },
): Record<string, unknown> {
  return {
    type: 'block_actions',
    ...('inHome' in where
      ? { container: { type: 'view', view_id: 'V123' }, view: { id: 'V123', type: 'home' } }
      : {
          response_url: where.responseUrl,
          container: { type: 'message', channel_id: where.channel, message_ts: where.ts, is_ephemeral: false },
          channel: { id: where.channel, name: 'alerts' },
        }),
    actions: [
      {
        type: 'button',
        action_id: actionId,
        block_id: 'b',
        value,
        action_ts: '1700000000.000001',
        text: { type: 'plain_text', text: 'x' },
      },
    ],
  };
}
