import { z } from 'zod';
import { describeNetworkError } from '../../domain/network-cause.js';
import type { PageEventBody } from '../../domain/oncall/page-event.js';
import { isRetriableStatus, PagerdutyError, retryAfterMs } from './pagerduty-error.js';

export { PagerdutyError } from './pagerduty-error.js';

/** An event as PagerDuty takes it: the body plus the integration's routing key. */
export type PagerdutyEvent = PageEventBody & { routing_key: string };

/** The Events API v2. Every failure is a PagerdutyError (an ExternalServiceError). */
export interface PagerdutyClient {
  /** Sends one event; resolves once PagerDuty accepted it (202). */
  send(event: PagerdutyEvent): Promise<{ dedupKey?: string }>;
}

export interface PagerdutyClientOptions {
  /** PAGERDUTY_EVENTS_URL, e.g. https://events.pagerduty.com/v2/enqueue (or events.eu.pagerduty.com). */
  eventsUrl: string;
  /** Per-request timeout: a hung connection must not stall the outbox. */
  timeoutMs?: number;
  /** For Retry-After given as a date. */
  now?: () => Date;
}

const Accepted = z.object({ dedup_key: z.string().optional() });
const Refused = z.object({ message: z.string().optional(), errors: z.array(z.unknown()).optional() });
/** PagerDuty's explanation of a refusal, cut so an odd answer cannot flood the outbox's error column. */
const MAX_REASON = 300;

export function createPagerdutyClient(options: PagerdutyClientOptions): PagerdutyClient {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const now = options.now ?? (() => new Date());

  return {
    async send(event) {
      // Whatever comes back is written to the outbox and the logs: the key must not be in it.
      const mask = (text: string) => text.split(event.routing_key).join('[routing key]');
      let res: Response;
      let text: string;
      try {
        res = await fetch(options.eventsUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(event),
          // A redirect would carry the routing key to wherever it points.
          redirect: 'error',
          signal: AbortSignal.timeout(timeoutMs),
        });
        text = await res.text();
      } catch (err) {
        throw new PagerdutyError(`could not reach PagerDuty: ${mask(describeNetworkError(err))}`, true);
      }
      if (res.ok) {
        const body = Accepted.safeParse(parseJson(text));
        return body.success && body.data.dedup_key ? { dedupKey: body.data.dedup_key } : {};
      }
      const retriable = isRetriableStatus(res.status);
      const wait = retriable ? retryAfterMs(res.headers.get('retry-after'), now()) : undefined;
      const reason = refusalReason(text);
      throw new PagerdutyError(`HTTP ${res.status}${reason ? `: ${mask(reason)}` : ''}`, retriable, {
        status: res.status,
        ...(wait !== undefined ? { retryAfterMs: wait } : {}),
      });
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `Event object is invalid (Length of 'routing_key' is incorrect)`: PagerDuty names fields, not values. */
function refusalReason(text: string): string {
  const body = Refused.safeParse(parseJson(text));
  if (!body.success) return '';
  const errors = (body.data.errors ?? []).map(String).join('; ');
  const reason = [body.data.message, errors && `(${errors})`].filter(Boolean).join(' ');
  return reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON - 1)}…` : reason;
}
