import { SIGNING_SECRET, type SlackServe } from '../../helpers/slack-serve.js';
import { slackSignature } from '../../helpers/slack-signing.js';
import { textOf } from '../fixtures.js';

let seq = 0;

/** What the user was told through the command's response_url, one string per answer. */
export function answers(h: SlackServe, id: string): string[] {
  return h.emulator.responses(id).map((r) => textOf(r.body as { text?: string; blocks?: unknown[] }));
}

/** `/drift <text>` as `user`; resolves when every answer has been sent. */
export async function ask(h: SlackServe, text: string, user: string): Promise<{ status: number; answers: string[] }> {
  const id = `ask-${++seq}`;
  const response = await h.command(text, user, id);
  await h.settle();
  return { status: response.status, answers: answers(h, id) };
}

/** POSTs a signed Events API callback, as Slack does. */
export function postEvent(h: SlackServe, event: Record<string, unknown>): Promise<Response> {
  const body = JSON.stringify({
    token: 'legacy-verification-token',
    team_id: 'T111',
    api_app_id: 'A111',
    type: 'event_callback',
    event_id: `Ev${++seq}`,
    event_time: Math.floor(Date.now() / 1000),
    event: { event_ts: '1700000000.000100', ...event },
  });
  return fetch(`${h.base}/slack/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...slackSignature(SIGNING_SECRET, body) },
    body,
  });
}
