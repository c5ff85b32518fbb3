import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { eventAge } from '../../domain/change-events/event-age.js';
import { ChangeEventError, type ChangeEvent, parseEventBridgeEvent } from '../../domain/change-events/schema.js';
import { errorMessage } from '../../domain/errors.js';
import { readBody } from '../read-body.js';
import { replyJson as reply } from '../reply.js';
import type { Logger } from '../../ports/logger.js';

export const AWS_EVENTS_PATH = '/events/aws';

/**
 * The header an EventBridge API destination sends the secret in: its connection's API key
 * authorization names the header and holds the value (in Secrets Manager, on AWS's side).
 */
export const DEFAULT_SECRET_HEADER = 'x-driftgate-events-secret';

/** EventBridge caps an event at 256 KB; anything larger did not come from it. */
const DEFAULT_MAX_BODY_BYTES = 256 * 1024;
const JSON_CONTENT_TYPE = /^\s*application\/json\s*(;|$)/i;

export interface AwsEventsListenerOptions {
  /** The shared secret (from the environment); compared in constant time. */
  secret: string;
  secretHeader?: string;
  /**
   * Takes one parsed event, answered 202 once it resolves (what must outlive a crash is kept by then),
   * 503 when it rejects (what had to be kept was not: the sender sends it again).
   */
  take(event: ChangeEvent): void | Promise<void>;
  logger: Logger;
  maxBodyBytes?: number;
  /** Events older than `maxAgeMs` by their own time, or too far ahead of `now`, are refused (`eventAge`). */
  age: { maxAgeMs: number; now: () => Date };
  /** Told of each event refused for its time, to count it. */
  refused?: (reason: 'too_old' | 'in_future') => void;
}

/** Equal-length digests, so neither the comparison's time nor an early length check says anything. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * `POST /events/aws`: the push endpoint for change events, from an EventBridge rule on "AWS API Call via
 * CloudTrail" through an API destination. The secret is checked before the body is read: a caller
 * without it gets 401 and costs nothing more. A body that is not such an event gets 400 with the paths
 * of what was wrong (the caller proved it holds the secret, so it may learn why), and so does one older
 * than the age window or from the future; a valid one 202.
 */
export function createAwsEventsListener(options: AwsEventsListenerOptions): RequestListener {
  const { logger } = options;
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const headerName = (options.secretHeader ?? DEFAULT_SECRET_HEADER).toLowerCase();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST')
      return reply(res, 405, { error: 'method not allowed: change events are POSTed' }, { allow: 'POST' });
    const given = req.headers[headerName];
    if (typeof given !== 'string' || !sameSecret(given, options.secret)) {
      logger.warn(
        { path: AWS_EVENTS_PATH, header: headerName, present: given !== undefined },
        'change event refused: wrong secret',
      );
      return reply(res, 401, { error: `missing or wrong ${headerName}` }, { connection: 'close' });
    }
    if (!JSON_CONTENT_TYPE.test(req.headers['content-type'] ?? ''))
      return reply(res, 415, { error: 'content type must be application/json' });
    const body = await readBody(req, limit);
    if (!body.ok) {
      logger.warn({ path: AWS_EVENTS_PATH, limit }, 'change event refused: body too large');
      return reply(res, 413, { error: `body larger than ${limit} bytes` }, { connection: 'close' });
    }
    let raw: unknown;
    try {
      raw = JSON.parse(body.text);
    } catch {
      logger.warn({ path: AWS_EVENTS_PATH, bytes: body.text.length }, 'change event refused: body is not JSON');
      return reply(res, 400, { error: 'body is not JSON' });
    }
    let event: ChangeEvent;
    try {
      event = parseEventBridgeEvent(raw);
    } catch (err) {
      if (!(err instanceof ChangeEventError)) throw err;
      logger.warn(
        { path: AWS_EVENTS_PATH, issues: err.issues },
        'change event refused: not an EventBridge CloudTrail event',
      );
      return reply(res, 400, { error: 'not an EventBridge "AWS API Call via CloudTrail" event', issues: err.issues });
    }
    // 400 like any other event that will never do: EventBridge does not send it again, where a 5xx or a
    // 429 would have it retry for up to a day; waiting makes an old event no younger.
    const age = eventAge(event, options.age.now(), options.age.maxAgeMs);
    if (!age.ok) {
      options.refused?.(age.reason);
      logger.warn(
        { path: AWS_EVENTS_PATH, eventId: event.record.eventID, eventTime: age.eventTime, reason: age.reason },
        `change event refused: ${age.why}`,
      );
      return reply(res, 400, { error: `event refused: ${age.why}`, reason: age.reason });
    }
    try {
      await options.take(event);
    } catch (err) {
      logger.warn(
        { path: AWS_EVENTS_PATH, eventId: event.record.eventID, err: errorMessage(err) },
        'change event not kept',
      );
      return reply(res, 503, { error: 'the event could not be kept now; send it again' }, { 'retry-after': '5' });
    }
    return reply(res, 202, { accepted: true, eventId: event.record.eventID });
  };

  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      logger.error({ err }, 'change event failed');
      if (!res.headersSent) reply(res, 500, { error: 'internal error' });
      else res.end();
    });
  };
}
