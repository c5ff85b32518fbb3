import { DeleteMessageCommand, type Message, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { eventAge } from '../../domain/change-events/event-age.js';
import { ChangeEventError, type ChangeEvent, parseEventBridgeEvent } from '../../domain/change-events/schema.js';
import { type AwsClientOptions, awsClientConfig } from './client-config.js';
import type { Logger } from '../../ports/logger.js';

/**
 * The SQS poller for change events: a long-poll loop on the SQS queue an EventBridge rule targets, for a
 * driftgate that must not be reachable from outside. A message is deleted only once its event was
 * handled. A message that is not an EventBridge CloudTrail event is logged with why and left in the
 * queue: it comes back after the visibility timeout, and once SQS has delivered it maxReceiveCount times
 * the queue's redrive policy moves it to the dead-letter queue, where a person can read it. That is how
 * an SQS DLQ works (SQS moves the message, not the consumer), so the queue must have a redrive policy;
 * without one such a message returns forever, logged each time. A handler that fails is treated alike.
 * An event older than the age window is deleted unhandled (logged): another delivery makes it no younger.
 */

export interface SqsChangeEventsOptions {
  client: SQSClient;
  queueUrl: string;
  /** Called once per valid event; the message is deleted when it resolves. */
  handle: (event: ChangeEvent, message: { id: string; receiveCount: number }) => Promise<void>;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Ends the loop: the long poll in flight is cancelled, the message being handled finishes first. */
  signal: AbortSignal;
  /** Long-poll wait, 1 to 20 s (default 20: one request per 20 s on an idle queue). */
  waitTimeSeconds?: number;
  /** Pause after a failed receive before the next (default 5 s), so a broken queue is not hammered. */
  errorPauseMs?: number;
  /** Events older than `maxAgeMs` by their own time, or too far ahead of `now`, are not handled (`eventAge`). */
  age: { maxAgeMs: number; now: () => Date };
  /** Told of each event refused for its time, to count it. */
  refused?: (reason: 'too_old' | 'in_future') => void;
}

export interface SqsChangeEventCounts {
  received: number;
  handled: number;
  /** Messages that were not EventBridge CloudTrail events, or whose time is ahead of now: left for the DLQ. */
  refused: number;
  /** Valid events whose handler threw: left for redelivery. */
  failed: number;
  /** Events older than the age window: deleted unhandled, as no redelivery makes them younger. */
  tooOld: number;
  receiveErrors: number;
}

/**
 * The SQS client for change events; the endpoint comes from the caller, else AWS_ENDPOINT_URL_SQS in
 * the given environment. `useQueueUrlAsEndpoint` stays on: a queue URL names its own host.
 */
export function createSqsClient(options: AwsClientOptions): SQSClient {
  return new SQSClient(awsClientConfig(options, 'AWS_ENDPOINT_URL_SQS'));
}

type Verdict = { ok: true; event: ChangeEvent } | { ok: false; why: string };

function readMessage(message: Message): Verdict {
  let raw: unknown;
  try {
    raw = JSON.parse(message.Body ?? '');
  } catch {
    // JSON.parse's message quotes the body; the body may hold anything, so it is not logged.
    return { ok: false, why: `the body is not JSON (${(message.Body ?? '').length} characters)` };
  }
  try {
    return { ok: true, event: parseEventBridgeEvent(raw) };
  } catch (err) {
    if (err instanceof ChangeEventError) return { ok: false, why: err.message };
    throw err;
  }
}

const abortable = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });

export async function runSqsChangeEvents(options: SqsChangeEventsOptions): Promise<SqsChangeEventCounts> {
  const { client, queueUrl, logger, signal } = options;
  const counts: SqsChangeEventCounts = {
    received: 0,
    handled: 0,
    refused: 0,
    failed: 0,
    tooOld: 0,
    receiveErrors: 0,
  };
  const remove = (message: Message, id: string, what: string) =>
    client
      .send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }))
      .catch((err: unknown) => logger.warn({ queueUrl, messageId: id, err }, `deleting ${what} SQS message failed`));

  async function process(message: Message): Promise<void> {
    const id = message.MessageId ?? '(no id)';
    const receiveCount = Number(message.Attributes?.ApproximateReceiveCount ?? 1);
    const verdict = readMessage(message);
    if (!verdict.ok) {
      counts.refused++;
      logger.warn(
        { queueUrl, messageId: id, receiveCount, why: verdict.why },
        'SQS message is not an EventBridge CloudTrail event: left for the dead-letter queue',
      );
      return;
    }
    const age = eventAge(verdict.event, options.age.now(), options.age.maxAgeMs);
    if (!age.ok) {
      options.refused?.(age.reason);
      const log = { queueUrl, messageId: id, eventId: verdict.event.record.eventID, eventTime: age.eventTime };
      if (age.reason === 'in_future') {
        // A clock a little off may be right by the next delivery; one that stays off fills the DLQ to read.
        counts.refused++;
        logger.warn(log, `SQS message refused: ${age.why}; left for another delivery or the dead-letter queue`);
        return;
      }
      counts.tooOld++;
      logger.warn(log, `SQS message refused: ${age.why}; deleted, as it only gets older`);
      await remove(message, id, 'a too old');
      return;
    }
    try {
      await options.handle(verdict.event, { id, receiveCount });
    } catch (err) {
      counts.failed++;
      logger.error(
        { queueUrl, messageId: id, receiveCount, err },
        'handling a change event failed: SQS will deliver it again',
      );
      return;
    }
    counts.handled++;
    // Deleting after handling: a crash in between delivers the event again, which the debounce absorbs.
    await remove(message, id, 'a handled');
  }

  while (!signal.aborted) {
    let messages: Message[];
    try {
      const output = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: options.waitTimeSeconds ?? 20,
          MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        }),
        { abortSignal: signal },
      );
      messages = output.Messages ?? [];
    } catch (err) {
      if (signal.aborted) break;
      counts.receiveErrors++;
      logger.error({ queueUrl, err }, 'receiving change events from SQS failed; retrying');
      await abortable(options.errorPauseMs ?? 5_000, signal);
      continue;
    }
    counts.received += messages.length;
    for (const message of messages) await process(message);
  }
  return counts;
}
