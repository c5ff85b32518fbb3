/**
 * Change events end to end in the domain, on a real plan: aws_s3_bucket and aws_s3_objects applied by
 * real terraform (AWS provider from the machine's mirror) to the local S3 server, an object's tags
 * changed out of band with the S3 client, and the EventBridge event AWS would send for that call taken
 * in. The index is built from the real `terraform show -json` of the next plan, whose drift names the
 * same object the event matched. One apply for the file: each provider start costs seconds.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClassifier } from '../../../src/domain/change-events/classify.js';
import {
  type CheckRequest,
  createCheckDebouncer,
  type DebounceTimer,
} from '../../../src/domain/change-events/debounce.js';
import { type MatchedChange, takeChangeEvent } from '../../../src/domain/change-events/intake.js';
import { indexEntriesOfPlan, ResourceIndex } from '../../../src/domain/change-events/resource-index.js';
import { parseEventBridgeEvent } from '../../../src/domain/change-events/schema.js';
import { type PlanJson, parsePlanJson } from '../../../src/domain/plan/schema.js';
import { renderChangeAttribution } from '../../../src/slack/blocks/render-change-attribution.js';
import { testRunner } from '../../adapters/terraform/fixtures.js';
import {
  changeOutOfBand,
  type S3ObjectSpec,
  s3ObjectStackHcl,
  s3StackSettings,
  s3TestClient,
  tagAsCreated,
} from '../../helpers/s3-object-stack.js';
import { type LocalS3, startLocalS3 } from '../../helpers/s3rver.js';
import { stackConfig } from '../../helpers/stack-config.js';
import { HAS_AWS_MIRROR, makeTerraformEnv, type TestTerraformEnv } from '../../helpers/terraform-env.js';
import { rawFixture } from './fixtures.js';

const BUCKET = 'driftgate-events-assets';
const OBJECTS: S3ObjectSpec[] = [
  { name: 'config', key: 'config/app.json', content: '{}', contentType: 'application/json', tags: { team: 'a' } },
  { name: 'readme', key: 'README.md', content: 'hi', contentType: 'text/markdown' },
];

/** The EventBridge event S3 sends for a console PutObjectTagging on `key`, from the recorded shape. */
function putObjectTaggingEvent(bucket: string, key: string, principalFixture = 'console-put-object-identity-center') {
  const raw = rawFixture(principalFixture as 'console-put-object-identity-center');
  const detail = raw.detail as Record<string, unknown>;
  Object.assign(detail, {
    eventName: 'PutObjectTagging',
    requestParameters: {
      bucketName: bucket,
      Host: `${bucket}.s3.eu-west-1.amazonaws.com`,
      key,
      tagging: '',
      Tagging: { TagSet: { Tag: { Key: 'team', Value: 'b' } } },
    },
    responseElements: null,
    resources: [
      { type: 'AWS::S3::Object', ARN: `arn:aws:s3:::${bucket}/${key}` },
      { accountId: '111122223333', type: 'AWS::S3::Bucket', ARN: `arn:aws:s3:::${bucket}` },
    ],
  });
  return parseEventBridgeEvent(raw);
}

/** Timers run when the test says: the debounce window passes without waiting two minutes. */
function handTimer(): DebounceTimer & { fire(): void } {
  const pending = new Map<number, () => void>();
  let id = 0;
  return {
    setTimeout(fn) {
      pending.set(++id, fn);
      return id;
    },
    clearTimeout(handle) {
      pending.delete(handle as number);
    },
    fire() {
      for (const [key, fn] of [...pending]) {
        pending.delete(key);
        fn();
      }
    },
  };
}

describe.skipIf(!HAS_AWS_MIRROR)('change events against a real plan of S3 resources', () => {
  let tf: TestTerraformEnv;
  let s3: LocalS3;
  let client: S3Client;
  let work: string;
  let plan: PlanJson;

  beforeAll(async () => {
    tf = await makeTerraformEnv('driftgate-events-real-');
    s3 = await startLocalS3();
    client = s3TestClient(s3);
    work = await mkdtemp(join(tmpdir(), 'driftgate-events-real-work-'));
    const dir = join(work, 'stack');
    await mkdir(dir);
    await writeFile(
      join(dir, 'main.tf'),
      s3ObjectStackHcl({ bucket: BUCKET, objects: OBJECTS, bucketResource: 'assets' }),
    );
    const stack = stackConfig('prod/assets', dir, s3StackSettings(s3));
    const { runner } = testRunner(tf.env, work);
    const planFile = join(work, 'drift.tfplan');
    await runner.apply(stack, (await runner.plan(stack, planFile)).planFile);
    await tagAsCreated(client, BUCKET, OBJECTS);
    await changeOutOfBand(client, BUCKET, 'config/app.json', { tags: { team: 'b' } });
    expect(await runner.plan(stack, planFile)).toMatchObject({ hasChanges: true });
    plan = parsePlanJson(await runner.showJson(stack, planFile));
  }, 400_000);

  afterAll(async () => {
    client?.destroy();
    await s3?.close();
    await tf?.cleanup();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('indexes the bucket and objects of the real prior state by what events name them with', () => {
    const entries = indexEntriesOfPlan(plan);
    expect(entries.map((e) => e.address).sort()).toEqual([
      'aws_s3_bucket.assets',
      'aws_s3_object.config',
      'aws_s3_object.readme',
    ]);
    expect(entries.find((e) => e.address === 'aws_s3_object.config')!.identifiers).toEqual(
      expect.arrayContaining([`${BUCKET}/config/app.json`, `arn:aws:s3:::${BUCKET}/config/app.json`]),
    );
    expect(entries.find((e) => e.address === 'aws_s3_bucket.assets')!.identifiers).toEqual(
      expect.arrayContaining([BUCKET, `arn:aws:s3:::${BUCKET}`]),
    );
  });

  it('queues one check of the stack for the out-of-band change, naming who made it; the plan shows that drift', () => {
    const index = ResourceIndex.fromJSON(JSON.parse(JSON.stringify(buildIndex().toJSON())));
    const due: CheckRequest<MatchedChange>[] = [];
    const timer = handTimer();
    const debouncer = createCheckDebouncer<MatchedChange>({ timer, onDue: (r) => due.push(r) });
    const deps = {
      classify: createClassifier({ ownIdentities: ['arn:aws:iam::*:role/driftgate-*'], automation: [] }),
      index,
      debouncer,
    };

    const first = takeChangeEvent(deps, putObjectTaggingEvent(BUCKET, 'config/app.json'));
    expect(first).toMatchObject({ kind: 'queued', stacks: [{ stack: 'prod/assets', result: 'scheduled' }] });
    // A second click in the same session: the same check.
    expect(takeChangeEvent(deps, putObjectTaggingEvent(BUCKET, 'config/app.json'))).toMatchObject({
      stacks: [{ stack: 'prod/assets', result: 'coalesced' }],
    });
    // Read-only, driftgate's own apply and an unmanaged bucket queue nothing.
    expect(takeChangeEvent(deps, parseEventBridgeEvent(rawFixture('read-only-get-object')))).toMatchObject({
      kind: 'ignored',
    });
    expect(takeChangeEvent(deps, putObjectTaggingEvent(BUCKET, 'config/app.json', 'terraform-own-role'))).toMatchObject(
      {
        kind: 'ignored',
        classification: { reason: 'own_apply' },
      },
    );
    expect(takeChangeEvent(deps, putObjectTaggingEvent('someone-elses-bucket', 'x.txt'))).toMatchObject({
      kind: 'unmatched',
    });

    timer.fire();
    expect(due).toHaveLength(1);
    const request = due[0]!;
    expect(request).toMatchObject({ stack: 'prod/assets', coalesced: 1 });
    expect(request.resources.sort()).toEqual(['aws_s3_bucket.assets', 'aws_s3_object.config']);
    expect(debouncer.counters()).toMatchObject({
      scheduled: 1,
      coalesced: 1,
      unmatched: 1,
      ignored: { read_only: 1, own_apply: 1 },
    });

    // The plan terraform made after the change reports drift on the object the event named.
    const drifted = (plan.resource_drift ?? []).map((d) => d.address);
    expect(drifted).toContain('aws_s3_object.config');

    const attribution = renderChangeAttribution(
      {
        status: 'found',
        changes: request.changes.map((c) => ({ ...c, resource: 'aws_s3_object.config' })),
      },
      { slackUsers: { 'alice@example.com': 'U0ALICE' } },
    );
    expect(JSON.stringify(attribution.blocks)).toContain('<@U0ALICE>');
    expect(JSON.stringify(attribution.blocks)).toContain('`PutObjectTagging`');
  });

  function buildIndex(): ResourceIndex {
    const index = new ResourceIndex();
    index.replaceStack('prod/assets', indexEntriesOfPlan(plan));
    return index;
  }
});
