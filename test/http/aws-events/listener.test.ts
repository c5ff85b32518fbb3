import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../../src/domain/change-events/schema.js';
import { AWS_EVENTS_PATH, createAwsEventsListener } from '../../../src/http/aws-events/listener.js';
import { FIXTURE_AGE, rawFixture } from '../../domain/change-events/fixtures.js';

const SECRET = 'events-secret-that-must-never-be-logged';

let server: Server;
let url: string;
let taken: ChangeEvent[];
let logs: { level: string; obj: object; msg?: string }[];
let refused: string[];

beforeEach(async () => {
  taken = [];
  logs = [];
  refused = [];
  const at = (level: string) => (obj: object, msg?: string) => {
    logs.push({ level, obj, ...(msg ? { msg } : {}) });
  };
  const listener = createAwsEventsListener({
    secret: SECRET,
    take: (event) => {
      taken.push(event);
    },
    logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
    maxBodyBytes: 64 * 1024,
    age: FIXTURE_AGE,
    refused: (reason) => refused.push(reason),
  });
  server = createServer(listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${AWS_EVENTS_PATH}`;
});
afterEach(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

const post = (body: string, headers: Record<string, string> = { 'x-driftgate-events-secret': SECRET }) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('POST /events/aws', () => {
  it('takes an EventBridge CloudTrail event sent with the secret', async () => {
    const res = await post(JSON.stringify(rawFixture('root')));
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ accepted: true, eventId: '0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d' });
    expect(taken.map((e) => e.record.eventName)).toEqual(['DeleteBucketPolicy']);
  });

  it.each([
    ['a wrong secret', { 'x-driftgate-events-secret': `${SECRET}x` }],
    ['a secret of another length', { 'x-driftgate-events-secret': 'short' }],
    ['no secret', {} as Record<string, string>],
  ])('answers 401 and does nothing for %s', async (_what, headers) => {
    const res = await post(JSON.stringify(rawFixture('root')), headers);
    expect(res.status).toBe(401);
    expect(taken).toEqual([]);
    expect(JSON.stringify(logs)).not.toContain(SECRET);
  });

  it('refuses a body over the cap', async () => {
    const raw = rawFixture('root');
    (raw.detail as Record<string, unknown>).requestParameters = { padding: 'x'.repeat(70 * 1024) };
    const res = await post(JSON.stringify(raw));
    expect(res.status).toBe(413);
    expect(taken).toEqual([]);
  });

  it('refuses a streamed body with no Content-Length once what arrived passes the cap', async () => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-driftgate-events-secret': SECRET },
    });
    const answered = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
    });
    for (let i = 0; i < 9; i++) req.write(`${'x'.repeat(8 * 1024)}`);
    req.end();
    expect(req.getHeader('content-length')).toBeUndefined();
    expect(await answered).toBe(413);
    expect(taken).toEqual([]);
  });

  it('refuses an event of an unknown shape, naming what was wrong', async () => {
    const res = await post(JSON.stringify(rawFixture('unknown-shape')));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { issues: { path: string }[] };
    expect(body.issues.map((i) => i.path).sort()).toEqual(['detail.eventName', 'detail.userIdentity']);
    expect(taken).toEqual([]);
    expect(logs.find((l) => l.level === 'warn')?.msg).toBe('change event refused: not an EventBridge CloudTrail event');
  });

  describe('by the event’s own time', () => {
    const at = (offsetMs: number) => {
      const raw = rawFixture('root');
      const time = new Date(FIXTURE_AGE.now().getTime() + offsetMs).toISOString().replace('.000Z', 'Z');
      (raw.detail as Record<string, unknown>).eventTime = time;
      return { raw, time };
    };

    it('refuses an event older than the window with a 400, not taken, counted and logged', async () => {
      // A captured request sent again a day later, secret and all.
      const { raw, time } = at(-FIXTURE_AGE.maxAgeMs - 1000);
      const res = await post(JSON.stringify(raw));
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: `event refused: its time ${time} is 6h ago, more than changeEvents.maxEventAge (6h)`,
        reason: 'too_old',
      });
      expect(taken).toEqual([]);
      expect(refused).toEqual(['too_old']);
      expect(logs.find((l) => l.level === 'warn')).toMatchObject({
        obj: { eventId: '0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d', eventTime: time, reason: 'too_old' },
        msg: expect.stringMatching(/^change event refused: its time .* is 6h ago/),
      });
    });

    it('refuses an event more than 5 minutes ahead of the clock with a 400', async () => {
      const { raw, time } = at(5 * 60_000 + 1000);
      const res = await post(JSON.stringify(raw));
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: `event refused: its time ${time} is 5m1s ahead of this server's clock, more than 5m`,
        reason: 'in_future',
      });
      expect(taken).toEqual([]);
      expect(refused).toEqual(['in_future']);
    });

    it('takes one just inside the window, and one a little ahead (clocks differ)', async () => {
      expect((await post(JSON.stringify(at(-FIXTURE_AGE.maxAgeMs + 1000).raw))).status).toBe(202);
      expect((await post(JSON.stringify(at(4 * 60_000).raw))).status).toBe(202);
      expect(taken).toHaveLength(2);
      expect(refused).toEqual([]);
    });
  });

  it('refuses a body that is not JSON, and other methods', async () => {
    expect((await post('{"detail-type": ')).status).toBe(400);
    expect((await fetch(url)).status).toBe(405);
    expect(
      (
        await fetch(url, {
          method: 'POST',
          headers: { 'x-driftgate-events-secret': SECRET, 'content-type': 'text/plain' },
          body: '{}',
        })
      ).status,
    ).toBe(415);
    expect(taken).toEqual([]);
  });
});
