import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CloudTrailLookupError,
  createCloudTrailClient,
  createCloudTrailLookup,
  createLookupLimiter,
} from '../../../src/adapters/aws/cloudtrail-lookup.js';
import {
  type CloudTrailEmulator,
  startCloudTrailEmulator,
  type TrailRecord,
} from '../../helpers/cloudtrail-emulator.js';
import { closedPort } from '../../helpers/ports.js';
import { rawFixture } from '../../domain/change-events/fixtures.js';

const credentials = { accessKeyId: 'AKIATESTTESTTEST0000', secretAccessKey: 'test-secret-not-real' };
const NOW = new Date('2026-12-03T16:00:00Z');
const SINCE = new Date('2026-12-03T09:00:00Z');

let emulator: CloudTrailEmulator;
beforeEach(async () => {
  emulator = await startCloudTrailEmulator();
});
afterEach(async () => {
  await emulator.close();
});

function detail(name: Parameters<typeof rawFixture>[0], change: Partial<TrailRecord> = {}): TrailRecord {
  return { ...(rawFixture(name).detail as TrailRecord), ...change };
}

function lookup(overrides: Partial<Parameters<typeof createCloudTrailLookup>[0]> = {}) {
  const sleeps: number[] = [];
  const history = createCloudTrailLookup({
    client: createCloudTrailClient({ region: 'eu-west-1', endpoint: emulator.endpoint, credentials }),
    account: '111122223333',
    region: 'eu-west-1',
    limiter: createLookupLimiter(1000),
    now: () => NOW,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...overrides,
  });
  return { history, sleeps };
}

describe('CloudTrail lookup', () => {
  it('reads every page of the calls that named a resource since a time, newest first', async () => {
    for (let i = 0; i < 120; i++) {
      const at = new Date(Date.parse('2026-12-03T10:00:00Z') + i * 60_000).toISOString();
      emulator.add(
        detail('console-put-bucket-tagging-identity-center', {
          eventTime: at,
          eventID: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        }),
      );
    }
    emulator.add(detail('root', { eventTime: '2026-12-03T08:59:59Z' }));
    emulator.add(detail('assumed-role-sdk'));
    const { history } = lookup();
    const result = await history.changesTo('acme-prod-assets', SINCE);
    expect(result.events).toHaveLength(120);
    expect(result.unreadable).toEqual([]);
    expect(result.truncated).toBe(false);
    expect(result.events[0]!.record.eventTime).toBe('2026-12-03T11:59:00.000Z');
    expect(result.events[0]).toMatchObject({ via: 'lookup', account: '111122223333', region: 'eu-west-1' });
    const calls = emulator.calls();
    expect(calls).toHaveLength(3);
    expect(calls.every((c) => c.signed && c.status === 200)).toBe(true);
    expect(calls[0]!.body).toMatchObject({
      LookupAttributes: [{ AttributeKey: 'ResourceName', AttributeValue: 'acme-prod-assets' }],
      StartTime: SINCE.getTime() / 1000,
      EndTime: NOW.getTime() / 1000,
      MaxResults: 50,
    });
    expect(calls[2]!.body.NextToken).toEqual(expect.any(String));
  });

  it('retries a throttled call with growing backoff', async () => {
    emulator.add(detail('root'));
    emulator.throttleNext(3);
    const { history, sleeps } = lookup({ baseDelayMs: 100 });
    const result = await history.changesTo('acme-prod-assets', SINCE);
    expect(result.events.map((e) => e.record.eventName)).toEqual(['DeleteBucketPolicy']);
    expect(emulator.calls().map((c) => c.status)).toEqual([400, 400, 400, 200]);
    expect(sleeps).toHaveLength(3);
    expect(sleeps[0]).toBeGreaterThanOrEqual(50);
    expect(sleeps[0]).toBeLessThanOrEqual(100);
    expect(sleeps[2]).toBeGreaterThanOrEqual(200);
    expect(sleeps[2]).toBeLessThanOrEqual(400);
  });

  it('gives up on throttling after its attempts with an error naming the resource, account and region', async () => {
    emulator.throttleNext(10);
    const { history } = lookup({ maxAttempts: 3 });
    const error = await history.changesTo('acme-prod-assets', SINCE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudTrailLookupError);
    expect(error).toMatchObject({
      code: 'EXTERNAL_SERVICE',
      retriable: true,
      attempts: 3,
      resourceName: 'acme-prod-assets',
    });
    expect((error as Error).message).toBe(
      'cloudtrail: LookupEvents for resource acme-prod-assets in account 111122223333, eu-west-1: still throttled after 3 attempts',
    );
    expect(emulator.calls()).toHaveLength(3);
  });

  it('does not retry what is not throttling', async () => {
    const { history } = lookup({
      client: createCloudTrailClient({
        region: 'eu-west-1',
        endpoint: `http://127.0.0.1:${await closedPort()}`,
        credentials,
      }),
    });
    const error = await history.changesTo('acme-prod-assets', SINCE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudTrailLookupError);
    expect(error).toMatchObject({ attempts: 1, retriable: true });
  });

  it('says a refused call is not worth retrying', async () => {
    emulator.failNext(1, { type: 'AccessDeniedException', status: 400 });
    const error = await lookup()
      .history.changesTo('acme-prod-assets', SINCE)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ attempts: 1, retriable: false });
    expect((error as Error).message).toContain('AccessDeniedException: scripted AccessDeniedException after 1 attempt');
    expect(emulator.calls()).toHaveLength(1);
  });

  it('lists a record it cannot read, with why, and keeps the others', async () => {
    emulator.add(detail('root'));
    const broken = detail('root', { eventID: '11111111-2222-4333-8444-555555555555' }) as Record<string, unknown>;
    delete broken.userIdentity;
    emulator.add(broken as TrailRecord, ['acme-prod-assets']);
    const { history } = lookup();
    const result = await history.changesTo('acme-prod-assets', SINCE);
    expect(result.events).toHaveLength(1);
    expect(result.unreadable).toEqual([
      { eventId: '11111111-2222-4333-8444-555555555555', reason: expect.stringContaining('userIdentity') },
    ]);
  });

  it('stops at its page bound and says so', async () => {
    for (let i = 0; i < 60; i++) emulator.add(detail('root', { eventID: `e-${i}` }));
    const { history } = lookup({ maxPages: 1 });
    const result = await history.changesTo('acme-prod-assets', SINCE);
    expect(result).toMatchObject({ truncated: true });
    expect(result.events).toHaveLength(50);
  });

  it('spaces the calls of one account and region at 2 a second', async () => {
    for (let i = 0; i < 120; i++) emulator.add(detail('root', { eventID: `e-${i}` }));
    const limiter = createLookupLimiter();
    // When the limiter lets each call go: the server's arrival times would also hold the first call's
    // connection set-up, which on a busy machine can bring two arrivals closer than their sends.
    const sent: number[] = [];
    limiter.on('created', (perKey) => perKey.on('executing', () => sent.push(performance.now())));
    const { history } = lookup({ limiter });
    await history.changesTo('acme-prod-assets', SINCE);
    expect(emulator.calls()).toHaveLength(3);
    expect(sent).toHaveLength(3);
    // A lower bound only: the limiter cannot let a call go sooner, however slow the machine.
    for (let i = 1; i < sent.length; i++) expect(sent[i]! - sent[i - 1]!).toBeGreaterThanOrEqual(480);
  });
});
