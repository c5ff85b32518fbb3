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
