/**
 * Change events end to end, on real drift: an S3 bucket and objects applied by real terraform (the AWS
 * provider from the offline mirror) to the local S3 server, `driftgate serve` with change events on, and
 * a person changing an object's tags out of band. The EventBridge event AWS would send for that call is
 * POSTed with the secret (and, for another change, sent through the SQS emulator): the stack is checked
 * after the debounce, and the alert in Slack names who made the change and with which call. Read-only
 * calls, driftgate's own applies and unmanaged buckets queue nothing; the index survives a restart. One
 * serve for the file: each provider start costs seconds.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '../../../src/domain/run/model.js';
import { loadAttribution } from '../../../src/services/stored-attribution.js';
import { rawFixture } from '../../domain/change-events/fixtures.js';
import {
  changeOutOfBand,
  type S3ObjectSpec,
  s3ObjectStackHcl,
  s3StackSettings,
  s3TestClient,
  tagAsCreated,
} from '../../helpers/s3-object-stack.js';
import { type LocalS3, startLocalS3 } from '../../helpers/s3rver.js';
import { CHANNEL, type SlackServe, startSlackServe } from '../../helpers/slack-serve.js';
import { type SqsEmulator, startSqsEmulator } from '../../helpers/sqs-emulator.js';
import { HAS_AWS_MIRROR } from '../../helpers/terraform-env.js';
import { alerts, textOf } from './fixtures.js';

const STACK = 'prod/assets';
const BUCKET = 'driftgate-events-assets';
const SECRET = 'events-secret-of-the-e2e-test';
const QUEUE = 'driftgate-events';
const ALICE = 'U0ALICE';
const OBJECTS: S3ObjectSpec[] = [
  { name: 'config', key: 'config/app.json', content: '{}', contentType: 'application/json', tags: { team: 'a' } },
  { name: 'readme', key: 'README.md', content: 'hi', contentType: 'text/markdown', tags: { team: 'a' } },
];

/** The EventBridge event S3 sends for PutObjectTagging on `key`, by the fixture's principal. */
function tagEvent(
  bucket: string,
  key: string,
  fixture: 'console-put-object-identity-center' | 'cli-iam-user' | 'terraform-own-role',
  id: string,
) {
  const raw = rawFixture(fixture);
  Object.assign(raw.detail as Record<string, unknown>, {
    eventID: id,
    eventName: 'PutObjectTagging',
    readOnly: false,
    requestParameters: { bucketName: bucket, key, tagging: '' },
    responseElements: null,
    resources: [
      { type: 'AWS::S3::Object', ARN: `arn:aws:s3:::${bucket}/${key}` },
      { accountId: '111122223333', type: 'AWS::S3::Bucket', ARN: `arn:aws:s3:::${bucket}` },
    ],
  });
  return raw;
}

const post = (h: SlackServe, body: unknown, secret = SECRET) =>
  fetch(`${h.base}/events/aws`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-driftgate-events-secret': secret },
    body: JSON.stringify(body),
  });

async function metric(h: SlackServe, labels: string): Promise<number> {
  const text = await (await fetch(`${h.base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`driftgate_change_events_total{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** Waits for the `n`th finished check an event queued. */
async function eventRun(h: SlackServe, n: number): Promise<Run> {
  for (let i = 0; i < 2400; i++) {
    const runs = (await h.running.context.store.listRuns({ stack: STACK }))
      .filter((r) => r.trigger === 'event' && r.state !== 'planning')
      .reverse();
    if (runs[n - 1]) return runs[n - 1]!;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no event check #${n}`);
}

describe.skipIf(!HAS_AWS_MIRROR)(
  'change events: an out-of-band change, its event, the check and the alert naming who',
  () => {
    let h: SlackServe;
    let s3: LocalS3;
    let sqs: SqsEmulator;
    let client: S3Client;

    beforeAll(async () => {
      s3 = await startLocalS3();
      client = s3TestClient(s3);
      sqs = await startSqsEmulator();
      const queueUrl = sqs.createQueue(QUEUE);
      const settings = s3StackSettings(s3);
      h = await startSlackServe({
        stacks: { [STACK]: s3ObjectStackHcl({ bucket: BUCKET, objects: OBJECTS, bucketResource: 'assets' }) },
        stackSettings: { [STACK]: settings },
        config: {
          changeEvents: {
            secretEnv: 'EVENTS_SECRET',
            sqs: { queueUrl, region: 'us-east-1', waitTime: 1 },
            ownIdentities: ['arn:aws:iam::*:role/driftgate-*'],
            slackUsers: { 'alice@example.com': ALICE },
            debounce: '1s',
            cloudTrail: { lookup: false },
          },
        },
        env: {
          EVENTS_SECRET: SECRET,
          AWS_ENDPOINT_URL_SQS: sqs.endpoint,
          AWS_ACCESS_KEY_ID: s3.accessKeyId,
          AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
        },
      });
      const cwd = h.stackDir(STACK);
      const env = { ...h.env, ...settings.env, TF_VAR_s3_endpoint: s3.endpoint };
      await execa('terraform', ['init', '-input=false', '-no-color'], { cwd, env, extendEnv: false });
      await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], { cwd, env, extendEnv: false });
      await tagAsCreated(client, BUCKET, OBJECTS);
      // The first check is clean: it reads the state and indexes the bucket and objects.
      expect(await h.running.scheduler.request(STACK)).toMatchObject({ status: 'no_changes' });
    }, 400_000);

    afterAll(async () => {
      await h?.close();
      client?.destroy();
      await s3?.close();
      await sqs?.close();
    });

    it('indexes the state after a clean plan, in the store', async () => {
      const [indexed] = await h.running.context.store.listResourceIndexes();
      expect(indexed).toMatchObject({ stack: STACK, serial: expect.any(Number) });
      expect(indexed!.resources.map((r) => r.address).sort()).toEqual([
        'aws_s3_bucket.assets',
        'aws_s3_object.config',
        'aws_s3_object.readme',
      ]);
    });

    it('refuses a wrong secret; read-only calls, own applies and unmanaged buckets queue nothing', async () => {
      expect(
        (await post(h, tagEvent(BUCKET, 'config/app.json', 'console-put-object-identity-center', 'e-0'), 'wrong'))
          .status,
      ).toBe(401);
      expect((await post(h, rawFixture('read-only-get-object'))).status).toBe(202);
      expect((await post(h, tagEvent(BUCKET, 'config/app.json', 'terraform-own-role', 'e-1'))).status).toBe(202);
      expect(
        (await post(h, tagEvent('someone-elses-bucket', 'x.txt', 'console-put-object-identity-center', 'e-2'))).status,
      ).toBe(202);
      expect(await metric(h, 'outcome="ignored",reason="read_only"')).toBe(1);
      expect(await metric(h, 'outcome="ignored",reason="own_apply"')).toBe(1);
      expect(await metric(h, 'outcome="unmatched",reason=""')).toBe(1);
      expect(await metric(h, 'outcome="matched",reason="scheduled"')).toBe(0);
      await new Promise((r) => setTimeout(r, 1500));
      expect(h.running.scheduler.status()).toEqual({ running: [], queued: [] });
      expect((await h.running.context.store.listRuns({ stack: STACK })).map((r) => r.trigger)).toEqual(['manual']);
    });

    it('checks the stack once after the debounce and alerts with who, how and the call', async () => {
      await changeOutOfBand(client, BUCKET, 'config/app.json', { tags: { team: 'b' } });
      // Two clicks of one console session: one check.
      for (const id of ['e-3', 'e-4'])
        expect(
          (await post(h, tagEvent(BUCKET, 'config/app.json', 'console-put-object-identity-center', id))).status,
        ).toBe(202);
      expect(await metric(h, 'outcome="matched",reason="scheduled"')).toBe(1);
      expect(await metric(h, 'outcome="matched",reason="coalesced"')).toBe(1);

      const run = await eventRun(h, 1);
      expect(run).toMatchObject({ state: 'drifted', kind: 'drift' });
      await h.idle();
      const [alert, ...more] = alerts(h, CHANNEL);
      expect(more).toEqual([]);
      const text = textOf(alert);
      expect(text).toContain(`<@${ALICE}>`);
      expect(text).toContain('`PutObjectTagging`');
      expect(text).toContain('in the console');
      expect(text).toContain('203.0.113.24');
      expect(text).toContain('`aws_s3_object.config`');
      const attribution = await loadAttribution(h.running.context.deps, run.id);
      expect(attribution).toMatchObject({ status: 'found', changes: [{ eventId: 'e-3' }, { eventId: 'e-4' }] });
    });

    it('takes an event from SQS, deletes the message, and attributes the next change', async () => {
      await changeOutOfBand(client, BUCKET, 'README.md', { tags: { team: 'c' } });
      const sender = new SQSClient({
        endpoint: sqs.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      });
      await sender.send(
        new SendMessageCommand({
          QueueUrl: sqs.queueUrl(QUEUE),
          MessageBody: JSON.stringify(tagEvent(BUCKET, 'README.md', 'cli-iam-user', 'e-5')),
        }),
      );
      sender.destroy();
      const run = await eventRun(h, 2);
      expect(run.state).toBe('drifted');
      const attribution = await loadAttribution(h.running.context.deps, run.id);
      expect(attribution).toMatchObject({
        status: 'found',
        changes: [{ eventId: 'e-5', how: 'cli', eventName: 'PutObjectTagging', resource: 'aws_s3_object.readme' }],
      });
      await h.idle();
      expect(sqs.bodies(QUEUE)).toEqual([]);
    });

    it('matches events after a restart with the index it kept', async () => {
      await h.restart();
      expect((await post(h, tagEvent(BUCKET, 'README.md', 'cli-iam-user', 'e-6'))).status).toBe(202);
      expect(await metric(h, 'outcome="matched",reason="scheduled"')).toBe(1);
      expect(await metric(h, 'outcome="unmatched",reason=""')).toBe(0);
      // Its check waits out the debounce; closing drops it, as any stop does (the next sweep sees the drift).
    });
  },
);
