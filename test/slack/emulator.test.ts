import { afterEach, describe, expect, it } from 'vitest';
import { startSlackEmulator, type SlackEmulator } from '../helpers/slack-emulator.js';

let emulator: SlackEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function start() {
  emulator = await startSlackEmulator({ users: [{ id: 'U1', name: 'alice' }] });
  const e = emulator;
  const auth = { authorization: `Bearer ${e.token}` };
  return {
    e,
    json: async (method: string, args: object, headers: Record<string, string> = auth) => {
      const res = await fetch(`${e.apiUrl}${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(args),
      });
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body: (await res.json()) as Record<string, unknown>,
      };
    },
    form: async (method: string, args: Record<string, string>) => {
      const res = await fetch(`${e.apiUrl}${method}`, {
        method: 'POST',
        headers: auth,
        body: new URLSearchParams(args),
      });
      return (await res.json()) as Record<string, unknown>;
    },
  };
}

describe('slack emulator', () => {
  it('keeps messages, applies updates, checks the token and Block Kit limits, and records every call', async () => {
    const { e, json, form } = await start();
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }];
    const posted = await form('chat.postMessage', { channel: 'C1', text: 'hi', blocks: JSON.stringify(blocks) });
    expect(posted).toMatchObject({ ok: true, channel: 'C1', ts: expect.stringMatching(/^\d+\.\d{6}$/) });
    const ts = posted.ts as string;
    expect((await json('chat.update', { channel: 'C1', ts, text: 'bye' })).body).toMatchObject({ ok: true });
    expect(e.message('C1', ts)).toMatchObject({ text: 'bye', updates: 1 });
    expect(e.message('C1', ts)?.blocks).toBeUndefined();

    const tooLong = [{ type: 'header', text: { type: 'plain_text', text: 'x'.repeat(151) } }];
    const refused = await json('chat.postMessage', { channel: 'C1', text: 'x', blocks: tooLong });
    expect(refused.body).toEqual({
      ok: false,
      error: 'invalid_blocks',
      problems: ['blocks[0] (header): header text is 151 characters (limit 150)'],
    });
    expect((await json('auth.test', {}, { authorization: 'Bearer wrong' })).body).toEqual({
      ok: false,
      error: 'invalid_auth',
    });
    expect((await json('users.info', { user: 'U1' })).body).toMatchObject({ ok: true, user: { name: 'alice' } });
    expect((await json('chat.update', { channel: 'C1', ts: '1.2', text: 'x' })).body).toMatchObject({
      error: 'message_not_found',
    });

    expect(e.calls().map((c) => [c.method, c.ok, c.error])).toEqual([
      ['chat.postMessage', true, undefined],
      ['chat.update', true, undefined],
      ['chat.postMessage', false, 'invalid_blocks'],
      ['auth.test', false, 'invalid_auth'],
      ['users.info', true, undefined],
      ['chat.update', false, 'message_not_found'],
    ]);
    // Form fields holding JSON are read as Slack reads them.
    expect(e.calls('chat.postMessage')[0]!.args.blocks).toEqual(blocks);
  });

  it('fails, rate limits and goes down on request', async () => {
    const { e, json } = await start();
    e.failNext(1, { status: 503 });
    e.rateLimitNext(1, 7);
    expect((await json('auth.test', {})).status).toBe(503);
    const limited = await json('auth.test', {});
    expect([limited.status, limited.retryAfter, limited.body.error]).toEqual([429, '7', 'ratelimited']);
    expect((await json('auth.test', {})).body.ok).toBe(true);

    await e.down();
    await expect(json('auth.test', {})).rejects.toThrow();
    await e.up();
    expect((await json('auth.test', {})).body.ok).toBe(true);
    await e.down('unavailable');
    expect((await json('auth.test', {})).status).toBe(503);
    await e.up();
    expect(e.calls('auth.test').map((c) => c.status)).toEqual([503, 429, 200, 200, 503]);
  });

  it('opens and publishes views within the view limits, and answers from seeded user groups', async () => {
    const { e, json } = await start();
    const view = (n: number) => ({
      type: 'modal',
      title: { type: 'plain_text', text: 'Plan' },
      blocks: Array.from({ length: n }, () => ({ type: 'divider' })),
    });
    expect((await json('views.open', { trigger_id: 't1', view: view(100) })).body).toMatchObject({
      ok: true,
      view: { id: expect.any(String) },
    });
    expect((await json('views.publish', { user_id: 'U1', view: view(101) })).body).toMatchObject({
      ok: false,
      error: 'invalid_blocks',
    });
    expect(e.views().map((v) => [v.kind, v.triggerId])).toEqual([['open', 't1']]);

    e.seedUsergroup({ id: 'S1', handle: 'sre', users: ['U1'] });
    expect((await json('usergroups.list', { include_users: true })).body).toEqual({
      ok: true,
      usergroups: [{ id: 'S1', handle: 'sre', name: 'sre', users: ['U1'] }],
    });
    expect((await json('usergroups.list', {})).body).toEqual({
      ok: true,
      usergroups: [{ id: 'S1', handle: 'sre', name: 'sre' }],
    });
    expect((await json('usergroups.users.list', { usergroup: 'S9' })).body).toEqual({
      ok: false,
      error: 'no_such_subteam',
    });
  });
});
