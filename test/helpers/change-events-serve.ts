/**
 * `driftgate serve` with change events on, over a real S3 stack (s3-object-stack.ts on s3rver), already
 * applied and checked clean, so its resources are indexed; and the EventBridge events AWS would send for
 * a person's out-of-band changes. For the end-to-end test and the time-to-alert benchmark.
 *
 * - `startChangeEventsServe(options)`: s3rver, the SQS emulator (queue `QUEUE`), the Slack serve with
 *   `changeEvents` (push secret `SECRET`, the queue, `debounce`, CloudTrail lookups when given an
 *   emulator's endpoint), the stack applied with terraform, and checked once unless `firstCheck: false`.
 * - `tagEvent(bucket, key, who, id)`: the event of a PutObjectTagging call by `who`; `s3CallEvent` of another.
 * - `postChangeEvent(base, body, secret?)`: POST /events/aws as an EventBridge API destination does.
 * - `changeEventsCounted(h, labels)`: `driftgate_change_events_total{labels}` on serve's `/metrics`.
 * - `eventRun(h, n)`: the stack's `n`th check an event queued, once finished.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { execa } from 'execa';
import type { Run } from '../../src/domain/run/model.js';
import type { ConfigPatch } from './config-builder.js';
import { waitFor } from './process-wait.js';
import { type S3ObjectSpec, s3ObjectStackHcl, s3StackSettings, s3TestClient, tagAsCreated } from './s3-object-stack.js';
import { type LocalS3, startLocalS3 } from './s3rver.js';
import { type SlackServe, startSlackServe } from './slack-serve.js';
import { type SqsEmulator, startSqsEmulator } from './sqs-emulator.js';

export const EVENTS_STACK = 'prod/assets';
export const EVENTS_BUCKET = 'driftgate-events-assets';
export const SECRET = 'events-secret-of-the-e2e-test-0123456789';
export const QUEUE = 'driftgate-events';
const ACCOUNT = '111122223333';

export interface ChangeEventsServe {
  h: SlackServe;
  s3: LocalS3;
  sqs: SqsEmulator;
  client: S3Client;
  close(): Promise<void>;
}

export async function startChangeEventsServe(options: {
  objects: S3ObjectSpec[];
  debounce: string;
  slackUsers?: Record<string, string>;
  /** More config (approvers, policies) merged beside `changeEvents`. */
  config?: ConfigPatch;
  /** Where sweeps ask CloudTrail who made drift (its emulator); default they do not. */
  cloudTrailEndpoint?: string;
  /** false: the stack is applied and never planned by driftgate (it is indexed from its state at the next start). */
  firstCheck?: boolean;
}): Promise<ChangeEventsServe> {
  const s3 = await startLocalS3();
  const client = s3TestClient(s3);
  const sqs = await startSqsEmulator();
  const queueUrl = sqs.createQueue(QUEUE);
  const settings = s3StackSettings(s3);
  const h = await startSlackServe({
    stacks: {
      [EVENTS_STACK]: s3ObjectStackHcl({ bucket: EVENTS_BUCKET, objects: options.objects, bucketResource: 'assets' }),
    },
    stackSettings: { [EVENTS_STACK]: settings },
    logLevel: 'info',
    config: {
      ...options.config,
      changeEvents: {
        secretEnv: 'EVENTS_SECRET',
        sqs: { queueUrl, region: 'us-east-1', waitTime: 1 },
        ownIdentities: ['arn:aws:iam::*:role/driftgate-*'],
        slackUsers: options.slackUsers ?? {},
        debounce: options.debounce,
        // In the SQS queue's region, with the stack's credentials.
        cloudTrail: { lookup: Boolean(options.cloudTrailEndpoint) },
      },
    },
    env: {
      ...(options.cloudTrailEndpoint ? { AWS_ENDPOINT_URL_CLOUDTRAIL: options.cloudTrailEndpoint } : {}),
      EVENTS_SECRET: SECRET,
      AWS_ENDPOINT_URL_SQS: sqs.endpoint,
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    },
  });
  // serve indexes the stack (never planned) from its state as it starts: terraform runs there first.
  await indexedAtStart(h, 300_000);
  const cwd = h.stackDir(EVENTS_STACK);
  const env = { ...h.env, ...settings.env, TF_VAR_s3_endpoint: s3.endpoint };
  await execa('terraform', ['init', '-input=false', '-no-color'], { cwd, env, extendEnv: false });
  await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], { cwd, env, extendEnv: false });
  await tagAsCreated(client, EVENTS_BUCKET, options.objects);
  // The first check is clean: it reads the state and indexes the bucket and objects.
  const first = options.firstCheck === false ? undefined : await h.running.scheduler.request(EVENTS_STACK);
  if (first && first.status !== 'no_changes') throw new Error(`the first check was ${first.status}, not clean`);
  return {
    h,
    s3,
    sqs,
    client,
    async close() {
      await h.close();
      client.destroy();
      await s3.close();
      await sqs.close();
    },
  };
}

/** serve's log line once it indexed the stacks never planned from their state. */
export const atStartIndexed = (line: string) => line.includes('stacks never planned indexed from their state');

/**
 * Until serve has indexed the stacks never planned from their state, as it does at start: terraform run in
 * such a stack's directory before then races serve's own for the directory's lock.
 */
export function indexedAtStart(h: Pick<SlackServe, 'logs'>, timeoutMs?: number): Promise<true> {
  return waitFor(
    'the stacks never planned indexed at start',
    () => (h.logs.some(atStartIndexed) ? true : undefined),
    timeoutMs,
  );
}

/** Who made a call, as CloudTrail records them. */
const PRINCIPALS = {
  /** An Identity Center user in the console. */
  'alice-console': {
    userIdentity: {
      type: 'AssumedRole',
      principalId: 'AROAEXAMPLESSO0000001:alice@example.com',
      arn: `arn:aws:sts::${ACCOUNT}:assumed-role/AWSReservedSSO_AdministratorAccess_0a1b2c3d4e5f6789/alice@example.com`,
      accountId: ACCOUNT,
      sessionContext: {
        sessionIssuer: {
          type: 'Role',
          arn: `arn:aws:iam::${ACCOUNT}:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_AdministratorAccess_0a1b2c3d4e5f6789`,
          userName: 'AWSReservedSSO_AdministratorAccess_0a1b2c3d4e5f6789',
        },
      },
    },
    sourceIPAddress: '203.0.113.24',
    userAgent: '[S3Console/0.4, aws-internal/3 aws-sdk-java/1.12.750]',
    sessionCredentialFromConsole: 'true',
  },
  /** An IAM user with the AWS CLI. */
  'bob-cli': {
    userIdentity: { type: 'IAMUser', arn: `arn:aws:iam::${ACCOUNT}:user/bob`, accountId: ACCOUNT, userName: 'bob' },
    sourceIPAddress: '198.51.100.7',
    userAgent: 'aws-cli/2.17.0 md/awscrt#0.20.11 ua/2.0 os/linux#6.8.0 md/arch#x86_64 lang/python#3.11.9',
  },
  /** The account's root user, in the console. */
  root: {
    userIdentity: { type: 'Root', principalId: ACCOUNT, arn: `arn:aws:iam::${ACCOUNT}:root`, accountId: ACCOUNT },
    sourceIPAddress: '192.0.2.10',
    userAgent: '[S3Console/0.4, aws-internal/3 aws-sdk-java/1.12.750]',
    sessionCredentialFromConsole: 'true',
  },
  /** driftgate's own apply role. */
  'driftgate-apply': {
    userIdentity: {
      type: 'AssumedRole',
      arn: `arn:aws:sts::${ACCOUNT}:assumed-role/driftgate-apply/driftgate`,
      accountId: ACCOUNT,
      sessionContext: { sessionIssuer: { type: 'Role', arn: `arn:aws:iam::${ACCOUNT}:role/driftgate-apply` } },
    },
    sourceIPAddress: '10.0.0.5',
    userAgent: 'APN/1.0 HashiCorp/1.0 Terraform/1.11.4 (+https://www.terraform.io) terraform-provider-aws/5.80.0',
  },
} as const;

/** The EventBridge event S3 sends for PutObjectTagging on `key` by `who`. */
export const tagEvent = (bucket: string, key: string, who: keyof typeof PRINCIPALS, id: string) =>
  s3CallEvent('PutObjectTagging', bucket, key, who, id);

/** The EventBridge event S3 sends for a call on object `key` (a data event: the trail logs object writes). */
export function s3CallEvent(eventName: string, bucket: string, key: string, who: keyof typeof PRINCIPALS, id: string) {
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    version: '0',
    id: `eb-${id}`,
    'detail-type': 'AWS API Call via CloudTrail',
    source: 'aws.s3',
    account: ACCOUNT,
    time: at,
    region: 'eu-west-1',
    resources: [],
    detail: {
      eventVersion: '1.10',
      ...PRINCIPALS[who],
      eventTime: at,
      eventSource: 's3.amazonaws.com',
      eventName,
      awsRegion: 'eu-west-1',
      requestParameters: { bucketName: bucket, key, ...(eventName === 'PutObjectTagging' ? { tagging: '' } : {}) },
      responseElements: null,
      eventID: id,
      readOnly: false,
      resources: [
        { type: 'AWS::S3::Object', ARN: `arn:aws:s3:::${bucket}/${key}` },
        { accountId: ACCOUNT, type: 'AWS::S3::Bucket', ARN: `arn:aws:s3:::${bucket}` },
      ],
      eventType: 'AwsApiCall',
      managementEvent: false,
      recipientAccountId: ACCOUNT,
    },
  };
}

export const postChangeEvent = (base: string, body: unknown, secret = SECRET) =>
  fetch(`${base}/events/aws`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-driftgate-events-secret': secret },
    body: JSON.stringify(body),
  });

/** The change events serve counted with these labels (`outcome="matched",reason="scheduled"`). */
export async function changeEventsCounted(h: SlackServe, labels: string): Promise<number> {
  const text = await (await fetch(`${h.base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`driftgate_change_events_total{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** Waits for the `n`th finished check of `stack` (EVENTS_STACK unless given) that an event queued. */
export async function eventRun(h: SlackServe, n: number, stack = EVENTS_STACK): Promise<Run> {
  return waitFor(
    `event check #${n}`,
    async () => {
      const runs = (await h.running.context.store.listRuns({ stack }))
        .filter((r) => r.trigger === 'event' && r.state !== 'planning')
        .reverse();
      return runs[n - 1];
    },
    300_000,
  );
}
