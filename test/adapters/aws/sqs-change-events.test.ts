import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqsClient, runSqsChangeEvents } from '../../../src/adapters/aws/sqs-change-events.js';
import type { ChangeEvent } from '../../../src/domain/change-events/schema.js';
import { FIXTURE_AGE, rawFixture } from '../../domain/change-events/fixtures.js';
import { type SqsEmulator, startSqsEmulator } from '../../helpers/sqs-emulator.js';

const credentials = { accessKeyId: 'AKIATESTTESTTEST0000', secretAccessKey: 'test-secret-not-real' };

let sqs: SqsEmulator;
let client: SQSClient;
let queueUrl: string;
beforeEach(async () => {
  sqs = await startSqsEmulator();
  client = createSqsClient({ region: 'eu-west-1', endpoint: sqs.endpoint, credentials });
  sqs.createQueue('driftgate-events-dlq');
  queueUrl = sqs.createQueue('driftgate-events', {
    visibilityTimeoutSeconds: 30,
    deadLetter: { queue: 'driftgate-events-dlq', maxReceiveCount: 2 },
  });
});
afterEach(async () => {
  client.destroy();
  await sqs.close();
});

function recordingLogger() {
  const lines: { level: string; obj: Record<string, unknown>; msg?: string }[] = [];
  const at = (level: string) => (obj: object, msg?: string) => {
    lines.push({ level, obj: obj as Record<string, unknown>, ...(msg ? { msg } : {}) });
  };
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

const send = (body: string) => client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));

/** The loop on the test queue, with a recording logger and a 1 s long poll. */
function startLoop(
  handle: Parameters<typeof runSqsChangeEvents>[0]['handle'],
  extra: Partial<Parameters<typeof runSqsChangeEvents>[0]> = {},
) {
  const abort = new AbortController();
  const { lines, logger } = recordingLogger();
  const loop = runSqsChangeEvents({
    client,
    queueUrl,
    logger,
    signal: abort.signal,
    waitTimeSeconds: 1,
    handle,
    age: FIXTURE_AGE,
    ...extra,
  });
  return { lines, loop, stop: () => abort.abort() };
}

/** Resolves once `condition` holds, checking as the loop makes progress. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 20));
}

describe('SQS change events', () => {
  it('hands each valid event to the handler and deletes it after', async () => {
    await send(JSON.stringify(rawFixture('root')));
    await send(JSON.stringify(rawFixture('console-put-object-identity-center')));
    const handled: ChangeEvent[] = [];
    const { loop, stop } = startLoop(async (event) => {
      handled.push(event);
    });
    await until(() => handled.length === 2 && sqs.bodies('driftgate-events').length === 0);
    stop();
    const counts = await loop;
    expect(handled.map((e) => e.record.eventName).sort()).toEqual(['DeleteBucketPolicy', 'PutObject']);
    expect(counts).toMatchObject({ received: 2, handled: 2, refused: 0, failed: 0 });
    expect(sqs.calls().filter((c) => c.operation === 'DeleteMessage' && c.status === 200)).toHaveLength(2);
  });

  it('leaves what is not an EventBridge event for the dead-letter queue, logging why', async () => {
    await send('this is not json');
    await send(JSON.stringify(rawFixture('unknown-shape')));
    let handled = 0;
    const { lines, loop, stop } = startLoop(async () => {
      handled++;
    });
    await until(() => lines.length === 2);
    // Past the visibility timeout: SQS delivers them a second time, then its redrive moves them.
    sqs.advance(31_000);
    await until(() => lines.length === 4);
    sqs.advance(31_000);
    await until(() => sqs.bodies('driftgate-events-dlq').length === 2);
    stop();
    const counts = await loop;
    expect(handled).toBe(0);
    expect(counts).toMatchObject({ refused: 4, handled: 0 });
    expect(sqs.bodies('driftgate-events')).toEqual([]);
    expect(sqs.calls().filter((c) => c.operation === 'DeleteMessage')).toEqual([]);
    const whys = lines.map((l) => String(l.obj.why));
    expect(whys).toContain('the body is not JSON (16 characters)');
    expect(whys.some((w) => w.includes('detail.userIdentity') && w.includes('detail.eventName'))).toBe(true);
    expect(lines.every((l) => l.level === 'warn' && l.msg?.includes('dead-letter queue'))).toBe(true);
  });

  it('deletes an event older than the window unhandled, and leaves one from the future for the dead-letter queue', async () => {
    const at = (offsetMs: number, eventID: string) => {
      const raw = rawFixture('root');
      const detail = raw.detail as Record<string, unknown>;
      detail.eventTime = new Date(FIXTURE_AGE.now().getTime() + offsetMs).toISOString();
      detail.eventID = eventID;
      return JSON.stringify(raw);
    };
    await send(at(-FIXTURE_AGE.maxAgeMs - 60_000, 'e-too-old'));
    await send(at(10 * 60_000, 'e-ahead'));
    const handled: string[] = [];
    const refused: string[] = [];
    const { lines, loop, stop } = startLoop(async (event) => void handled.push(event.record.eventID), {
      refused: (reason) => refused.push(reason),
    });
    await until(() => lines.length === 2 && sqs.bodies('driftgate-events').length === 1);
    stop();
    const counts = await loop;
    expect(handled).toEqual([]);
    expect(refused.sort()).toEqual(['in_future', 'too_old']);
    expect(counts).toMatchObject({ received: 2, handled: 0, tooOld: 1, refused: 1 });
    // The old one is gone for good; the one ahead waits for another delivery (or the DLQ).
    expect(sqs.bodies('driftgate-events')).toEqual([expect.stringContaining('e-ahead')]);
    expect(sqs.calls().filter((c) => c.operation === 'DeleteMessage' && c.status === 200)).toHaveLength(1);
    expect(lines.map((l) => [l.obj.eventId, l.msg])).toEqual(
      expect.arrayContaining([
        ['e-too-old', expect.stringMatching(/is 6h1m ago, more than changeEvents.maxEventAge \(6h\); deleted/)],
        ['e-ahead', expect.stringMatching(/is 10m ahead of this server's clock.*dead-letter queue$/)],
      ]),
    );
  });

  it('keeps an event whose handling failed, so SQS delivers it again', async () => {
    await send(JSON.stringify(rawFixture('cli-iam-user')));
    const attempts: number[] = [];
    const { lines, loop, stop } = startLoop(async (_event, message) => {
      attempts.push(message.receiveCount);
      if (attempts.length === 1) throw new Error('store unavailable');
    });
    await until(() => attempts.length === 1);
    sqs.advance(31_000);
    await until(() => attempts.length === 2 && sqs.bodies('driftgate-events').length === 0);
    stop();
    expect(await loop).toMatchObject({ handled: 1, failed: 1 });
    expect(attempts).toEqual([1, 2]);
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(1);
  });

  it('stops during a long poll when aborted, cancelling the request', async () => {
    const { loop, stop } = startLoop(async () => {}, { waitTimeSeconds: 20 });
    await until(() => sqs.inFlight() === 1);
    stop();
    expect(await loop).toMatchObject({ received: 0, receiveErrors: 0 });
    // Cancelled, not waited out: the 20 s poll was closed by the client before any answer.
    await until(() => sqs.abandoned() === 1);
    expect(sqs.calls()).toEqual([]);
  });

  it('logs a failed receive and keeps polling', async () => {
    const { lines, loop, stop } = startLoop(async () => {}, {
      queueUrl: sqs.queueUrl('no-such-queue'),
      errorPauseMs: 10,
    });
    await until(() => lines.length >= 2);
    stop();
    const counts = await loop;
    expect(counts.receiveErrors).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatchObject({ level: 'error', msg: 'receiving change events from SQS failed; retrying' });
  });
});
