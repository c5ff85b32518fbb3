/**
 * Who changed drift a sweep found: the CloudTrail LookupEvents adapter against the emulator (the JSON
 * protocol the SDK speaks), a real SQLite store for the stack's last clean check, and the real index.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createCloudTrailClient,
  createCloudTrailLookup,
  createLookupLimiter,
} from '../../../src/adapters/aws/cloudtrail-lookup.js';
import { createClassifier } from '../../../src/domain/change-events/classify.js';
import { ResourceIndex } from '../../../src/domain/change-events/resource-index.js';
import { STATE_ADDRESS } from '../../../src/domain/change-events/state-address.js';
import { stateObjectEntries } from '../../../src/domain/change-events/state-object.js';
import { createDriftAttributor } from '../../../src/services/change-events/attribute-drift.js';
import { matchedChange, rawFixture } from '../../domain/change-events/fixtures.js';
import { useTempStore } from '../../adapters/store/temp-store.js';
import {
  type CloudTrailEmulator,
  startCloudTrailEmulator,
  type TrailRecord,
} from '../../helpers/cloudtrail-emulator.js';

const BUCKET = 'acme-prod-assets';
const STACK = 'prod/assets';
const NOW = new Date('2026-12-03T16:00:00Z');
const KEY_ID = '1234abcd-12ab-34cd-56ef-1234567890ab';
const KEY_ARN = `arn:aws:kms:eu-west-1:111122223333:key/${KEY_ID}`;
const CLEAN_AT = new Date('2026-12-03T09:00:00Z');
const onBucket = { requestParameters: { bucketName: BUCKET }, resources: [{ ARN: `arn:aws:s3:::${BUCKET}` }] };
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

let emulator: CloudTrailEmulator;
beforeEach(async () => {
  emulator = await startCloudTrailEmulator();
});
afterEach(async () => {
  await emulator.close();
});
const tmp = useTempStore();

const detail = (name: Parameters<typeof rawFixture>[0], change: Partial<TrailRecord> = {}): TrailRecord => ({
  ...(rawFixture(name).detail as TrailRecord),
  ...change,
});

function attributor(options: { maxAttempts?: number; timeoutMs?: number; maxLookups?: number } = {}) {
  const index = new ResourceIndex();
  index.replaceStack(STACK, [
    { address: 'aws_s3_bucket.assets', identifiers: [BUCKET, `arn:aws:s3:::${BUCKET}`] },
    { address: 'aws_s3_bucket.logs', identifiers: ['acme-logs', 'arn:aws:s3:::acme-logs'] },
    { address: 'aws_kms_key.data', identifiers: [KEY_ID, KEY_ARN] },
    {
      address: 'aws_s3_object.config',
      identifiers: [`${BUCKET}/config/app.json`, `arn:aws:s3:::${BUCKET}/config/app.json`],
    },
    ...stateObjectEntries({ bucket: 'acme-state', key: `${STACK}/terraform.tfstate` }),
  ]);
  const store = tmp.open({ now: () => NOW });
  const history = createCloudTrailLookup({
    client: createCloudTrailClient({
      region: 'eu-west-1',
      endpoint: emulator.endpoint,
      credentials: { accessKeyId: 'AKIATESTTESTTEST0000', secretAccessKey: 'not-a-real-secret' },
    }),
    account: '111122223333',
    region: 'eu-west-1',
    limiter: createLookupLimiter(1000),
    now: () => NOW,
    sleep: async () => {},
    ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
  });
  const classify = createClassifier({ ownIdentities: ['arn:aws:iam::*:role/driftgate-*'], automation: [] });
  const attribute = createDriftAttributor({
    store,
    logger: quiet,
    now: () => NOW,
    index,
    classify,
    history,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxLookups ? { maxLookups: options.maxLookups } : {}),
  });
  return { attribute, store };
}

describe('attributing drift a sweep found', () => {
  it('says how many drifted resources it did not ask about, past the lookups a check may make', async () => {
    const { attribute } = attributor({ maxLookups: 2 });
    emulator.add(detail('root', { requestParameters: { keyId: KEY_ID }, resources: [{ ARN: KEY_ARN }] }));
    const drifted = ['aws_s3_bucket.assets', 'aws_s3_bucket.logs', 'aws_kms_key.data', 'aws_s3_object.config'];
    const found = await attribute(STACK, drifted);
    // Two resources asked about (the first two the index holds), each by name then ARN: no call on them.
    expect(new Set(emulator.calls().map((c) => JSON.stringify(c.body.LookupAttributes)))).toHaveProperty('size', 4);
    expect(found).toEqual({ status: 'none', notLookedUp: 2 });
  });

  it('asks CloudTrail since the last clean check and keeps the calls that changed the drifted resource', async () => {
    const { attribute } = attributor();
    const morning = tmp.open({ now: () => CLEAN_AT });
    const clean = await morning.createRun({ stack: STACK, trigger: 'schedule' });
    await morning.transition(clean.id, 'planning', 'no_changes');
    emulator.add(detail('console-put-bucket-tagging-identity-center'));
    emulator.add(detail('root'));
    // Read-only, driftgate's own apply and a call before the last clean check say nothing about this drift.
    emulator.add(detail('cli-iam-user', { eventTime: '2026-12-03T08:00:00Z', ...onBucket }));
    emulator.add(detail('read-only-get-object', { requestParameters: { bucketName: BUCKET, key: 'x' } }));
    emulator.add(detail('terraform-own-role', onBucket));
    const found = await attribute(STACK, ['aws_s3_bucket.assets']);
    expect(found?.status).toBe('found');
    const changes = found?.status === 'found' ? found.changes : [];
    expect(changes.map((c) => [c.eventName, c.principal.kind, c.resource]).sort()).toEqual([
      ['DeleteBucketPolicy', 'root', 'aws_s3_bucket.assets'],
      ['PutBucketTagging', 'identity_center', 'aws_s3_bucket.assets'],
    ]);
    // One resource drifted: one lookup, by its name (as CloudTrail records a bucket), from the clean check on.
    const lookups = emulator.calls();
    expect(lookups).toHaveLength(1);
    expect(lookups[0]!.body).toMatchObject({
      LookupAttributes: [{ AttributeKey: 'ResourceName', AttributeValue: BUCKET }],
    });
    expect(lookups[0]!.body.StartTime).toBe(CLEAN_AT.getTime() / 1000);
  });

  it("names who wrote the stack's state object from the waiting changes, drift or not, and never asks CloudTrail about it", async () => {
    const { attribute, store } = attributor();
    await store.addPendingChanges(STACK, [
      matchedChange('0000e010-0000', { stack: STACK, address: STATE_ADDRESS, name: 'bob', eventName: 'PutObject' }),
    ]);
    const mark = await store.markPendingChanges(STACK);
    const found = await attribute(STACK, [], { upTo: mark });
    expect(found?.status === 'found' ? found.changes.map((c) => [c.principal.name, c.resource]) : found).toEqual([
      ['bob', STATE_ADDRESS],
    ]);
    // Beside drift: CloudTrail is asked about the drifted bucket only (LookupEvents has no object writes).
    await attribute(STACK, ['aws_s3_bucket.assets'], { upTo: mark });
    expect(emulator.calls().map((c) => (c.body as { LookupAttributes: unknown }).LookupAttributes)).toEqual([
      [{ AttributeKey: 'ResourceName', AttributeValue: BUCKET }],
      [{ AttributeKey: 'ResourceName', AttributeValue: `arn:aws:s3:::${BUCKET}` }],
    ]);
  });

  it('asks CloudTrail only about drift the waiting changes do not name, and reads those up to its mark', async () => {
    const { attribute, store } = attributor();
    const kept = (eventId: string, name: string) =>
      matchedChange(eventId, { stack: STACK, address: 'aws_s3_bucket.assets', name });
    await store.addPendingChanges(STACK, [kept('0000e001-0000', 'alice')]);
    const mark = await store.markPendingChanges(STACK);
    // Kept while the check planned: the next check's to answer.
    await store.addPendingChanges(STACK, [kept('0000e002-0000', 'bob')]);
    emulator.add(
      detail('root', {
        eventID: '0000e003-0000',
        requestParameters: { bucketName: 'acme-logs' },
        resources: [{ ARN: 'arn:aws:s3:::acme-logs' }],
      }),
    );
    const found = await attribute(STACK, ['aws_s3_bucket.assets', 'aws_s3_bucket.logs'], { upTo: mark });
    const changes = found?.status === 'found' ? found.changes : [];
    // Oldest first: root's call came before alice's.
    expect(changes.map((c) => [c.principal.name, c.resource])).toEqual([
      ['root', 'aws_s3_bucket.logs'],
      ['alice', 'aws_s3_bucket.assets'],
    ]);
    const lookups = emulator.calls();
    expect(lookups).toHaveLength(1);
    expect(lookups[0]!.body).toMatchObject({
      LookupAttributes: [{ AttributeKey: 'ResourceName', AttributeValue: 'acme-logs' }],
    });
  });

  it('asks by the ARN when CloudTrail knows no write call under the plain name (a KMS key)', async () => {
    const { attribute } = attributor();
    // A read under the key's id says nothing about who changed it.
    emulator.add(
      detail('read-only-get-object', {
        eventID: '0000d0d0-read',
        eventSource: 'kms.amazonaws.com',
        eventName: 'DescribeKey',
        requestParameters: { keyId: KEY_ID },
        resources: [],
      }),
      [KEY_ID],
    );
    emulator.add(
      detail('cli-iam-user', {
        eventSource: 'kms.amazonaws.com',
        eventName: 'DisableKeyRotation',
        requestParameters: { keyId: KEY_ARN },
        responseElements: null,
        resources: [{ ARN: KEY_ARN }],
      }),
    );
    const found = await attribute(STACK, ['aws_kms_key.data']);
    expect(found?.status === 'found' && found.changes.map((c) => [c.eventName, c.resource])).toEqual([
      ['DisableKeyRotation', 'aws_kms_key.data'],
    ]);
    expect(emulator.calls().map((c) => c.body.LookupAttributes)).toEqual([
      [{ AttributeKey: 'ResourceName', AttributeValue: KEY_ID }],
      [{ AttributeKey: 'ResourceName', AttributeValue: KEY_ARN }],
    ]);
  });

  it('attributes a call on an object to the object, though the lookup by its bucket returns it first', async () => {
    const { attribute } = attributor();
    emulator.add(detail('console-put-object-identity-center'));
    emulator.add(detail('console-put-bucket-tagging-identity-center'));
    const found = await attribute(STACK, ['aws_s3_bucket.assets', 'aws_s3_object.config']);
    const changes = found?.status === 'found' ? found.changes : [];
    expect(changes.map((c) => [c.eventName, c.resource]).sort()).toEqual([
      ['PutBucketTagging', 'aws_s3_bucket.assets'],
      ['PutObject', 'aws_s3_object.config'],
    ]);
    // A call on an object that did not drift says nothing about its drifted bucket.
    expect(await attribute(STACK, ['aws_s3_bucket.assets'])).toMatchObject({
      changes: [expect.objectContaining({ eventName: 'PutBucketTagging' })],
    });
  });

  it('retries a throttled CloudTrail, and says "none" when it knows no call', async () => {
    const { attribute } = attributor();
    emulator.throttleNext(2);
    expect(await attribute(STACK, ['aws_s3_bucket.logs'])).toEqual({ status: 'none' });
    // Retried by its name until answered, then asked by its ARN: CloudTrail knows neither.
    expect(emulator.calls().map((c) => c.status)).toEqual([400, 400, 200, 200]);
  });

  it('does not ask CloudTrail again for drift already attributed (a re-plan of the same drift)', async () => {
    const { attribute } = attributor();
    expect(await attribute(STACK, ['aws_s3_bucket.assets'], { lookUp: false })).toBeUndefined();
    expect(emulator.calls()).toEqual([]);
  });

  it('gives up on a CloudTrail that does not answer in time, and makes no more calls for that check', async () => {
    const { attribute } = attributor({ timeoutMs: 300 });
    emulator.hold();
    const drifted = ['aws_s3_bucket.assets', 'aws_s3_bucket.logs', 'aws_kms_key.data'];
    expect(await attribute(STACK, drifted)).toEqual({ status: 'unknown' });
    expect(emulator.held()).toBeLessThanOrEqual(1);
    emulator.release();
    // Without the cancel, the lookup went on with the next name and the next resources once released.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(emulator.calls().length).toBeLessThanOrEqual(1);
  });

  it('costs only the answer when CloudTrail does not answer', async () => {
    const { attribute } = attributor({ maxAttempts: 2 });
    emulator.failNext(5, { type: 'AccessDeniedException', status: 400 });
    expect(await attribute(STACK, ['aws_s3_bucket.assets'])).toEqual({ status: 'unknown' });
  });

  it('keeps what the waiting changes say, and that CloudTrail did not answer about the rest', async () => {
    const { attribute, store } = attributor({ maxAttempts: 2 });
    await store.addPendingChanges(STACK, [
      matchedChange('0000e001-0000', { stack: STACK, address: 'aws_s3_bucket.assets' }),
    ]);
    emulator.failNext(5, { type: 'AccessDeniedException', status: 400 });
    const found = await attribute(STACK, ['aws_s3_bucket.assets', 'aws_s3_bucket.logs'], {
      upTo: await store.markPendingChanges(STACK),
    });
    expect(found).toMatchObject({ status: 'found', unanswered: true, changes: [{ eventId: '0000e001-0000' }] });
  });
});
