/**
 * A PagerDuty Events API v2 stand-in on a real loopback port. It checks each event the way PagerDuty
 * documents (routing key of 32 characters, a known event_action, dedup_key and summary within their
 * limits, severity and source on triggers), answers 202 or 400 like PagerDuty, and records every request
 * in arrival order. It can be told to fail the next requests with 5xx or 429, or to refuse connections.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readRaw } from './slack-emulator/read-body.js';

const ACTIONS = ['trigger', 'acknowledge', 'resolve'];
const SEVERITIES = ['critical', 'error', 'warning', 'info'];

export interface ReceivedCall {
  /** The parsed body (or the raw text when it was not JSON), routing key included. */
  body: Record<string, unknown>;
  status: number;
  at: Date;
  errors?: string[];
}

export interface PagerdutyReceiver {
  /** For PAGERDUTY_EVENTS_URL: `http://127.0.0.1:<port>/v2/enqueue`. */
  readonly eventsUrl: string;
  /** Every request so far, in arrival order. */
  calls(): ReceivedCall[];
  /** The events answered 202, in order. */
  accepted(): Record<string, unknown>[];
  failNext(n: number, options: { status: 500 | 502 | 503 }): void;
  /** The next `n` requests answer 429, with `Retry-After: retryAfterSeconds` when given. */
  rateLimitNext(n: number, retryAfterSeconds?: number): void;
  /** Closes the port: connections are refused until `up()`. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

/** What PagerDuty would list in `errors` for this event; empty when it takes it. */
export function eventProblems(body: unknown): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return ['Event object is not a JSON object'];
  const event = body as Record<string, unknown>;
  const problems: string[] = [];
  const str = (v: unknown): v is string => typeof v === 'string';
  if (!str(event.routing_key) || event.routing_key.length !== 32)
    problems.push("Length of 'routing_key' is incorrect (should be 32 characters)");
  if (!ACTIONS.includes(event.event_action as string))
    problems.push("'event_action' is invalid (must be one of trigger, acknowledge, resolve)");
  if (event.dedup_key !== undefined && (!str(event.dedup_key) || event.dedup_key.length > 255))
    problems.push("'dedup_key' must be a string of at most 255 characters");
  if (event.event_action !== 'trigger' && event.dedup_key === undefined)
    problems.push("'dedup_key' is required for acknowledge and resolve");
  if (event.event_action === 'trigger') {
    const payload = event.payload as Record<string, unknown> | undefined;
    if (typeof payload !== 'object' || payload === null) return [...problems, "'payload' is missing"];
    if (!str(payload.summary) || payload.summary.length === 0) problems.push("'payload.summary' is missing");
    else if (payload.summary.length > 1024) problems.push("'payload.summary' is longer than 1024 characters");
    if (!str(payload.source) || payload.source.length === 0) problems.push("'payload.source' is missing");
    if (!SEVERITIES.includes(payload.severity as string))
      problems.push("'payload.severity' is invalid (must be one of critical, error, warning, info)");
  }
  return problems;
}

type Scripted = { status: number; retryAfter?: number };

export async function startPagerdutyReceiver(): Promise<PagerdutyReceiver> {
  const recorded: ReceivedCall[] = [];
  const script: Scripted[] = [];

  function answer(
    res: ServerResponse,
    call: ReceivedCall,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) {
    recorded.push(call);
    res.writeHead(call.status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  const server = createServer((req, res) => {
    void readRaw(req).then((raw) => {
      const at = new Date();
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        body = { raw: raw.toString('utf8') };
      }
      const scripted = script.shift();
      if (scripted) {
        const headers: Record<string, string> =
          scripted.retryAfter === undefined ? {} : { 'retry-after': String(scripted.retryAfter) };
        return answer(
          res,
          { body, status: scripted.status, at },
          { status: 'error', message: 'scripted failure' },
          headers,
        );
      }
      if (req.method !== 'POST' || req.url !== '/v2/enqueue')
        return answer(res, { body, status: 404, at }, { status: 'not found' });
      const errors = eventProblems(body);
      if (errors.length)
        return answer(
          res,
          { body, status: 400, at, errors },
          { status: 'invalid event', message: 'Event object is invalid', errors },
        );
      const dedupKey = typeof body.dedup_key === 'string' ? body.dedup_key : randomUUID();
      return answer(
        res,
        { body, status: 202, at },
        { status: 'success', message: 'Event processed', dedup_key: dedupKey },
      );
    });
  });
  const listen = async (port: number) => {
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
  };
  const stop = async () => {
    if (!server.listening) return;
    const closed = once(server, 'close');
    server.close();
    server.closeAllConnections();
    await closed;
  };

  await listen(0);
  const { port } = server.address() as AddressInfo;

  return {
    eventsUrl: `http://127.0.0.1:${port}/v2/enqueue`,
    calls: () => [...recorded],
    accepted: () => recorded.filter((c) => c.status === 202).map((c) => c.body),
    failNext(n, { status }) {
      for (let i = 0; i < n; i++) script.push({ status });
    },
    rateLimitNext(n, retryAfter) {
      for (let i = 0; i < n; i++) script.push({ status: 429, ...(retryAfter === undefined ? {} : { retryAfter }) });
    },
    down: stop,
    async up() {
      if (!server.listening) await listen(port);
    },
    close: stop,
  };
}
