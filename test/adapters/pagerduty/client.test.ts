import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPagerdutyClient, PagerdutyError, type PagerdutyEvent } from '../../../src/adapters/pagerduty/client.js';
import { buildResolveEvent } from '../../../src/domain/oncall/page-event.js';
import { closedPort } from '../../helpers/ports.js';
import { startPagerdutyReceiver, type PagerdutyReceiver } from '../../helpers/pagerduty-receiver.js';

const KEY = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
const resolve: PagerdutyEvent = { ...buildResolveEvent({ name: 'prod/net' }), routing_key: KEY };

/** A one-off server for answers the receiver does not give (a hang, a redirect, a dated Retry-After). */
async function serve(listener: RequestListener) {
  const server = createServer(listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<PagerdutyError> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PagerdutyError);
  expect((err as Error).message).not.toContain(KEY);
  return err as PagerdutyError;
}

describe('PagerDuty Events API client', () => {
  let receiver: PagerdutyReceiver;
  beforeEach(async () => {
    receiver = await startPagerdutyReceiver();
  });
  afterEach(() => receiver.close());

  it('posts the event as JSON and returns PagerDuty dedup_key', async () => {
    const client = createPagerdutyClient({ eventsUrl: receiver.eventsUrl });
    expect(await client.send(resolve)).toEqual({ dedupKey: 'driftgate:prod/net' });
    expect(receiver.accepted()).toEqual([resolve]);
  });

  it.each([
    {
      name: '500',
      script: (r: PagerdutyReceiver) => r.failNext(1, { status: 500 }),
      retriable: true,
      status: 500,
      retryAfterMs: undefined,
    },
    {
      name: '503',
      script: (r: PagerdutyReceiver) => r.failNext(1, { status: 503 }),
      retriable: true,
      status: 503,
      retryAfterMs: undefined,
    },
    {
      name: '429 with Retry-After',
      script: (r: PagerdutyReceiver) => r.rateLimitNext(1, 30),
      retriable: true,
      status: 429,
      retryAfterMs: 30_000,
    },
    {
      name: '429 without Retry-After',
      script: (r: PagerdutyReceiver) => r.rateLimitNext(1),
      retriable: true,
      status: 429,
      retryAfterMs: undefined,
    },
  ])('a $name is retriable', async ({ script, retriable, status, retryAfterMs }) => {
    script(receiver);
    const err = await failure(createPagerdutyClient({ eventsUrl: receiver.eventsUrl }).send(resolve));
    expect(err).toMatchObject({ retriable, code: 'EXTERNAL_SERVICE', service: 'pagerduty' });
    expect(err.details).toEqual(retryAfterMs === undefined ? { status } : { status, retryAfterMs });
  });

  it('a 400 is permanent and says what PagerDuty refused, without the key', async () => {
    const client = createPagerdutyClient({ eventsUrl: receiver.eventsUrl });
    const err = await failure(
      client.send({ event_action: 'trigger', dedup_key: 'x', routing_key: KEY } as unknown as PagerdutyEvent),
    );
    expect(err).toMatchObject({ retriable: false, details: { status: 400 } });
    expect(err.message).toBe("pagerduty: HTTP 400: Event object is invalid ('payload' is missing)");
  });

  it('a key PagerDuty quotes back is masked', async () => {
    const echo = await serve((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'invalid event', message: `unknown routing key ${KEY}` }));
    });
    try {
      const err = await failure(createPagerdutyClient({ eventsUrl: echo.url }).send(resolve));
      expect(err.message).toBe('pagerduty: HTTP 400: unknown routing key [routing key]');
    } finally {
      await echo.close();
    }
  });

  it('a refused connection is retriable', async () => {
    const client = createPagerdutyClient({ eventsUrl: `http://127.0.0.1:${await closedPort()}/v2/enqueue` });
    const err = await failure(client.send(resolve));
    expect(err.retriable).toBe(true);
    expect(err.message).toContain('could not reach PagerDuty');
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('gives up on a hung connection after its timeout, as retriable', async () => {
    const hung = await serve(() => undefined);
    try {
      const started = performance.now();
      const err = await failure(createPagerdutyClient({ eventsUrl: hung.url, timeoutMs: 200 }).send(resolve));
      expect(err).toMatchObject({ retriable: true, message: 'pagerduty: could not reach PagerDuty: timed out' });
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      await hung.close();
    }
  });

  it('reads a Retry-After given as a date against its clock', async () => {
    const now = new Date('2025-01-01T10:00:00Z');
    const dated = await serve((_req, res) => {
      res.writeHead(429, { 'retry-after': new Date(now.getTime() + 90_000).toUTCString() });
      res.end();
    });
    try {
      const err = await failure(createPagerdutyClient({ eventsUrl: dated.url, now: () => now }).send(resolve));
      expect(err.details).toEqual({ status: 429, retryAfterMs: 90_000 });
    } finally {
      await dated.close();
    }
  });

  it('does not follow a redirect: the key goes to the configured host only', async () => {
    const moved = await serve((_req, res) => {
      res.writeHead(307, { location: receiver.eventsUrl });
      res.end();
    });
    try {
      const err = await failure(createPagerdutyClient({ eventsUrl: moved.url }).send(resolve));
      expect(err.retriable).toBe(true);
      expect(receiver.calls()).toEqual([]);
    } finally {
      await moved.close();
    }
  });
});
