import { describe, expect, it } from 'vitest';
import { messagePlaceholder } from '../../../src/services/outbox/placeholders.js';
import { BACKOFF, TOKEN, useOutboxFixture } from './outbox-fixture.js';

const ref = messagePlaceholder;
const section = (text: string) => [{ type: 'section', text: { type: 'mrkdwn', text } }];
const content = (text: string) => ({ text, blocks: section(text) });
const post = (text: string) => ({ channel: 'C1', ...content(text) });

describe('slack outbox worker', () => {
  const fx = useOutboxFixture();

  it('delivers each key in order, filling in the message of an update and a reply enqueued before the post', async () => {
    const { store, worker } = fx.open();
    await store.enqueue({
      key: 'run-1',
      method: 'chat.postMessage',
      payload: post('drift on net'),
      recordMessageFor: 'run-1',
    });
    await store.enqueue({
      key: 'run-1',
      method: 'chat.update',
      payload: { channel: ref('run-1'), ts: ref('run-1'), ...content('approved 1/2') },
    });
    await store.enqueue({
      key: 'run-1',
      method: 'chat.postMessage',
      payload: { channel: ref('run-1'), thread_ts: ref('run-1'), text: 'applying' },
    });
    await store.enqueue({
      key: 'run-2',
      method: 'chat.postMessage',
      payload: post('drift on app'),
      recordMessageFor: 'run-2',
    });

    expect(await worker.drain()).toBe(4);
    const posted = (await store.getMessage('run-1'))!;
    expect(fx.emulator.message('C1', posted.ts)).toMatchObject({
      text: 'approved 1/2',
      updates: 1,
      blocks: section('approved 1/2'),
    });
    expect(fx.emulator.messages('C1').map((m) => [m.text, m.threadTs])).toEqual([
      ['approved 1/2', undefined],
      ['drift on app', undefined],
      ['applying', posted.ts],
    ]);
    expect(await store.getMessage('run-2')).toMatchObject({ channel: 'C1' });
    const run1 = fx.emulator.calls().filter((c) => c.args.text !== 'drift on app');
    expect(run1.map((c) => c.method)).toEqual(['chat.postMessage', 'chat.update', 'chat.postMessage']);
    expect(await store.pendingCount()).toBe(0);
  });

  it('holds a reply from another key until its run message exists, and gives up on one that never will', async () => {
    const { store, worker } = fx.open({ maxUnresolvedAttempts: 2 });
    await store.enqueue({
      key: 'run-1',
      method: 'chat.postMessage',
      payload: post('drift'),
      recordMessageFor: 'run-1',
    });
    await store.enqueue({
      key: 'stack:net',
      method: 'chat.postMessage',
      payload: { channel: 'C1', thread_ts: ref('run-1'), text: 'also' },
    });
    await store.enqueue({
      key: 'stack:app',
      method: 'chat.postMessage',
      payload: { channel: 'C1', thread_ts: ref('run-9'), text: 'lost' },
    });
    fx.emulator.failNext(1, { status: 503 });
    expect(await worker.drain()).toBe(0);
    fx.advance(BACKOFF.maxMs);
    expect(await worker.drain()).toBe(2);
    const ts = (await store.getMessage('run-1'))!.ts;
    expect(fx.emulator.messages().map((m) => [m.text, m.threadTs])).toEqual([
      ['drift', undefined],
      ['also', ts],
    ]);
    expect(await store.pendingCount()).toBe(0);
    expect(fx.log.lines.find((l) => l.includes('dead-lettered'))).toContain(
      'no Slack message recorded yet for run run-9',
    );
  });

  it('retries through a Slack outage of 5xx answers and posts the message exactly once', async () => {
    const { store, worker } = fx.open();
    await store.enqueue({
      key: 'run-1',
      method: 'chat.postMessage',
      payload: post('drift'),
      recordMessageFor: 'run-1',
    });
    fx.emulator.failNext(2, { status: 500 });
    fx.emulator.failNext(2, { status: 503 });
    let delivered = 0;
    for (let i = 0; i < 6; i++) {
      delivered += await worker.drain();
      fx.advance(BACKOFF.maxMs);
    }
    expect(delivered).toBe(1);
    const calls = fx.emulator.calls('chat.postMessage');
    expect(calls.map((c) => c.status)).toEqual([500, 500, 503, 503, 200]);
    expect(calls.filter((c) => c.ok)).toHaveLength(1);
    expect(fx.emulator.messages()).toHaveLength(1);
    expect(fx.log.lines.filter((l) => l.includes('will retry'))).toHaveLength(4);
  });

  it('waits out a 429 for as long as its Retry-After says, by the injected clock', async () => {
    const { store, worker } = fx.open();
    await store.enqueue({ key: 'run-1', method: 'chat.postMessage', payload: post('drift') });
    fx.emulator.rateLimitNext(1, 30);
    expect(await worker.drain()).toBe(0);
    fx.advance(29_999);
    expect(await worker.drain()).toBe(0);
    expect(fx.emulator.calls('chat.postMessage')).toHaveLength(1);
    fx.advance(1);
    expect(await worker.drain()).toBe(1);
    expect(fx.emulator.calls('chat.postMessage').map((c) => c.status)).toEqual([429, 200]);
  });

  it('keeps items while Slack cannot be reached and sends them once it is back', async () => {
    const { store, worker } = fx.open();
    await store.enqueue({ key: 'run-1', method: 'chat.postMessage', payload: post('one') });
    await store.enqueue({ key: 'run-1', method: 'chat.postMessage', payload: post('two') });
    await fx.emulator.down();
    expect(await worker.drain()).toBe(0);
    fx.advance(BACKOFF.baseMs);
    const [waiting] = await store.due(new Date(Date.parse('2100-01-01')), 10);
    expect(waiting).toMatchObject({ attempts: 1, lastError: expect.stringContaining('could not reach Slack') });
    await fx.emulator.up();
    expect(await worker.drain()).toBe(2);
    expect(fx.emulator.messages().map((m) => m.text)).toEqual(['one', 'two']);
  });

  it('a new worker on the same database delivers what the previous one left', async () => {
    const first = fx.open();
    await first.store.enqueue({
      key: 'run-1',
      method: 'chat.postMessage',
      payload: post('one'),
      recordMessageFor: 'run-1',
    });
    await first.store.enqueue({
      key: 'run-1',
      method: 'chat.update',
      payload: { channel: ref('run-1'), ts: ref('run-1'), ...content('two') },
    });
    fx.emulator.failNext(1, { status: 503 });
    first.worker.start(60_000);
    await first.worker.stop();
    await fx.close(first.store);
    expect(fx.emulator.calls('chat.postMessage').map((c) => c.status)).toEqual([503]);

    const second = fx.open();
    fx.advance(BACKOFF.baseMs);
    expect(await second.worker.drain()).toBe(2);
    expect(fx.emulator.messages().map((m) => [m.text, m.updates])).toEqual([['two', 1]]);
  });

  it('dead-letters a message Slack refuses as invalid_blocks after one try, and goes on with the key', async () => {
    const failed: [number, string, boolean][] = [];
    const { store, worker } = fx.open({
      onFailed: (item, error, { dead }) => void failed.push([item.id, error, dead]),
    });
    const bad = await store.enqueue({
      key: 'run-1',
      method: 'chat.postMessage',
      payload: { channel: 'C1', text: 'x', blocks: section('y'.repeat(3001)) },
    });
    await store.enqueue({ key: 'run-1', method: 'chat.postMessage', payload: post('next') });
    expect(await worker.drain()).toBe(1);
    fx.advance(BACKOFF.maxMs * 10);
    expect(await worker.drain()).toBe(0);
    expect(fx.emulator.calls('chat.postMessage').map((c) => c.error ?? 'ok')).toEqual(['invalid_blocks', 'ok']);
    expect(failed).toEqual([[bad.id, expect.stringContaining('invalid_blocks'), true]]);
    expect(await store.pendingCount()).toBe(0);
    const logged = fx.log.lines.find((l) => l.includes('dead-lettered'));
    expect(logged).toContain('section text is 3001 characters');
    // Neither the token nor the payload is in any log line.
    expect(fx.log.lines.join('\n')).not.toContain(TOKEN);
    expect(fx.log.lines.join('\n')).not.toContain('y'.repeat(100));
  });

  it('uploads a file into the thread of a run message with the v2 flow', async () => {
    const { store, worker } = fx.open();
    const planText = 'Terraform will perform the following actions:\n  ~ update in-place ✓\n';
    await store.enqueue({
      key: 'run-1',
      method: 'chat.postMessage',
      payload: post('drift'),
      recordMessageFor: 'run-1',
    });
    await store.enqueue({
      key: 'run-1',
      method: 'files.uploadV2',
      payload: {
        channel: ref('run-1'),
        thread_ts: ref('run-1'),
        filename: 'plan.txt',
        title: 'Plan',
        content: planText,
      },
    });
    fx.emulator.failNext(1, { status: 500 });
    expect(await worker.drain()).toBe(0);
    fx.advance(BACKOFF.baseMs);
    expect(await worker.drain()).toBe(2);
    const [file] = fx.emulator.files();
    const ts = (await store.getMessage('run-1'))!.ts;
    expect(file).toMatchObject({
      filename: 'plan.txt',
      title: 'Plan',
      length: Buffer.byteLength(planText),
      shared: { channel: 'C1', threadTs: ts },
    });
    expect(file!.bytes!.toString('utf8')).toBe(planText);
    expect(fx.emulator.calls().map((c) => c.method)).toEqual([
      'chat.postMessage',
      'chat.postMessage',
      'files.getUploadURLExternal',
      'upload',
      'files.completeUploadExternal',
    ]);
  });
});
