import { afterEach, describe, expect, it } from 'vitest';
import { ExternalServiceError } from '../../../src/domain/errors.js';
import { createSlackApi } from '../../../src/adapters/slack/api.js';
import { SlackApiError } from '../../../src/ports/slack-api.js';
import { startSlackEmulator, type SlackEmulator } from '../../helpers/slack-emulator.js';
import { captureLogger, TOKEN } from '../../services/outbox/outbox-fixture.js';

let emulator: SlackEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function failure(promise: Promise<unknown>): Promise<SlackApiError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SlackApiError);
  expect(err).toBeInstanceOf(ExternalServiceError);
  return err as SlackApiError;
}

describe('slack api client', () => {
  it('maps each kind of failure to a typed error saying whether a retry can help, never quoting the token', async () => {
    emulator = await startSlackEmulator({ token: TOKEN, channels: ['C1'] });
    const log = captureLogger();
    const api = createSlackApi({ token: TOKEN, apiUrl: emulator.apiUrl, logger: log.logger });
    const header = { type: 'header', text: { type: 'plain_text', text: 'x'.repeat(200) } };

    expect(await api.call('chat.postMessage', { channel: 'C1', text: 'hi' })).toMatchObject({
      ok: true,
      channel: 'C1',
    });
    const errors = [
      await failure(api.call('chat.postMessage', { channel: 'C1', text: 'hi', blocks: [header] })),
      await failure(api.call('chat.postMessage', { channel: 'C404', text: 'hi' })),
      await failure(
        createSlackApi({ token: 'xoxb-wrong', apiUrl: emulator.apiUrl, logger: log.logger }).call('auth.test', {}),
      ),
    ];
    emulator.failNext(1, { status: 502 });
    errors.push(await failure(api.call('auth.test', {})));
    emulator.rateLimitNext(1, 7);
    errors.push(await failure(api.call('auth.test', {})));
    await emulator.down();
    errors.push(await failure(api.call('auth.test', {})));

    expect(errors.map((e) => [e.method, e.retriable, e.details])).toEqual([
      ['chat.postMessage', false, { slackError: 'invalid_blocks' }],
      ['chat.postMessage', false, { slackError: 'channel_not_found' }],
      ['auth.test', false, { slackError: 'invalid_auth' }],
      ['auth.test', true, { status: 502 }],
      ['auth.test', true, { slackError: 'ratelimited', status: 429, retryAfterMs: 7000 }],
      // Not reached at all: the network's code, which doctor tells apart from a token Slack refused.
      ['auth.test', true, { network: expect.stringMatching(/^(ECONNREFUSED|UND_ERR_SOCKET)$/) }],
    ]);
    expect(errors[0]!.message).toContain('header text is 200 characters (limit 150)');
    expect(errors[5]!.message).toMatch(/could not reach Slack: fetch failed \((ECONNREFUSED|UND_ERR_SOCKET)[:)]/);
    for (const err of errors)
      expect(JSON.stringify({ message: err.message, stack: err.stack, cause: err.cause })).not.toContain(TOKEN);
    expect(log.lines.join('\n')).not.toContain(TOKEN);
  });

  it('uploads a file with the v2 flow and fails typed when the upload step fails', async () => {
    emulator = await startSlackEmulator({ token: TOKEN });
    const api = createSlackApi({ token: TOKEN, apiUrl: emulator.apiUrl, logger: captureLogger().logger });
    await api.uploadFile({ channel: 'C1', filename: 'apply.log', content: 'done' });
    expect(emulator.files()).toMatchObject([{ filename: 'apply.log', shared: { channel: 'C1' } }]);
    expect(emulator.calls('upload')[0]!.args).toMatchObject({ bytes: 4 });

    emulator.failNext(1, { status: 500 });
    await expect(api.uploadFile({ channel: 'C1', filename: 'x.txt', content: 'x' })).rejects.toMatchObject({
      retriable: true,
      method: 'files.getUploadURLExternal',
    });
  });
});
