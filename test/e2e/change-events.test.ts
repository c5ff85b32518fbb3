/**
 * Change events end to end, on real drift: an S3 bucket and objects applied by real terraform (the AWS
 * provider from the offline mirror) to the local S3 server, `driftgate serve` with change events on, and
 * a person changing an object's tags out of band. The EventBridge event AWS would send for that call is
 * POSTed with the secret (and, for another change, sent through the SQS emulator): the stack is checked
 * after the debounce, and the alert in Slack names who made the change and with which call. Read-only
 * calls, driftgate's own applies and unmanaged buckets queue nothing; stopping serve while a check asks
 * CloudTrail still answers its lookup; the index survives a restart. One serve for the file: each
 * provider start costs seconds.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '../../src/domain/run/model.js';
import { loadArtifact } from '../../src/services/runtime/artifacts.js';
import { loadAnalysis } from '../../src/services/check/stored-analysis.js';
import { loadAttribution } from '../../src/services/check/stored-attribution.js';
import { approvers } from '../helpers/config-builder.js';
import { rawFixture } from '../domain/change-events/fixtures.js';
import {
  type ChangeEventsServe,
  changeEventsCounted,
  eventRun,
  EVENTS_BUCKET as BUCKET,
  EVENTS_STACK as STACK,
  postChangeEvent,
  QUEUE,
  startChangeEventsServe,
  tagEvent,
} from '../helpers/change-events-serve.js';
import { type CloudTrailEmulator, startCloudTrailEmulator, type TrailRecord } from '../helpers/cloudtrail-emulator.js';
import { waitFor } from '../helpers/process-wait.js';
import { changeOutOfBand, type S3ObjectSpec } from '../helpers/s3-object-stack.js';
import { CHANNEL, type SlackServe } from '../helpers/slack-serve.js';
import { HAS_AWS_MIRROR } from '../helpers/terraform-env.js';
import { alerts, LEAD1, LEAD2, textOf } from './fixtures.js';

const ALICE = 'U0ALICE';
const OBJECTS: S3ObjectSpec[] = [
  { name: 'config', key: 'config/app.json', content: '{}', contentType: 'application/json', tags: { team: 'a' } },
  { name: 'readme', key: 'README.md', content: 'hi', contentType: 'text/markdown', tags: { team: 'a' } },
];

/** serve's clock is the test's: set to now, so that an event made now is not ahead of it (a slow machine). */
const post = (h: SlackServe, body: unknown, secret?: string) => {
  h.now.value = new Date();
  return postChangeEvent(h.base, body, secret);
};

/** A recorded event as made just now: the push door refuses one older than `changeEvents.maxEventAge`. */
function justNow(raw: Record<string, unknown>): Record<string, unknown> {
  return { ...raw, detail: { ...(raw.detail as object), eventTime: new Date().toISOString() } };
}

describe.skipIf(!HAS_AWS_MIRROR)(
  'change events: an out-of-band change, its event, the check and the alert naming who',
  () => {
    let world: ChangeEventsServe;
    let h: SlackServe;
    let trail: CloudTrailEmulator;

    beforeAll(async () => {
      trail = await startCloudTrailEmulator();
      world = await startChangeEventsServe({
        objects: OBJECTS,
        debounce: '1s',
        cloudTrailEndpoint: trail.endpoint,
        slackUsers: { 'alice@example.com': ALICE },
        config: {
          ...approvers({ leads: [LEAD1], security: [LEAD2] }, [{ stacks: '*', count: 1, from: ['leads'] }]),
          policies: {
            rules: [
              {
                name: 'root-changes-need-security',
                scope: 'plan',
                when: 'drift.changes.exists(c, c.principal.kind == "root")',
                effect: 'require_approval',
                count: 1,
                from: ['security'],
              },
            ],
          },
        },
      });
      h = world.h;
    }, 400_000);

    afterAll(async () => {
      trail?.release();
      await world?.close();
      await trail?.close();
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
      expect((await post(h, tagEvent(BUCKET, 'config/app.json', 'alice-console', 'e-0'), 'wrong')).status).toBe(401);
      expect((await post(h, justNow(rawFixture('read-only-get-object')))).status).toBe(202);
      expect((await post(h, tagEvent(BUCKET, 'config/app.json', 'driftgate-apply', 'e-1'))).status).toBe(202);
      expect((await post(h, tagEvent('someone-elses-bucket', 'x.txt', 'alice-console', 'e-2'))).status).toBe(202);
      expect(await changeEventsCounted(h, 'outcome="ignored",reason="read_only"')).toBe(1);
      expect(await changeEventsCounted(h, 'outcome="ignored",reason="own_apply"')).toBe(1);
      expect(await changeEventsCounted(h, 'outcome="unmatched",reason=""')).toBe(1);
      expect(await changeEventsCounted(h, 'outcome="matched",reason="scheduled"')).toBe(0);
      await new Promise((r) => setTimeout(r, 1500));
      expect(h.running.scheduler.status()).toEqual({ running: [], queued: [] });
      expect((await h.running.context.store.listRuns({ stack: STACK })).map((r) => r.trigger)).toEqual(['manual']);
      // The unmanaged bucket's change is kept for `/drift events` (test/e2e/commands/events.test.ts asks it).
      const kept = await h.running.context.store.listUnmatchedChanges({ since: new Date(0), limit: 10 });
      expect(kept.counted).toBe(1);
      expect(kept.changes.map((c) => [c.eventId, c.principal.display, c.resources])).toEqual([
        [
          'e-2',
          'alice@example.com (Identity Center, AdministratorAccess)',
          ['arn:aws:s3:::someone-elses-bucket/x.txt', 'arn:aws:s3:::someone-elses-bucket', 'someone-elses-bucket'],
        ],
      ]);
    });

    it('checks the stack once after the debounce and alerts with who, how and the call', async () => {
      await changeOutOfBand(world.client, BUCKET, 'config/app.json', { tags: { team: 'b' } });
      // Two clicks of one console session: one check.
      for (const id of ['e-3', 'e-4'])
        expect((await post(h, tagEvent(BUCKET, 'config/app.json', 'alice-console', id))).status).toBe(202);
      expect(await changeEventsCounted(h, 'outcome="matched",reason="scheduled"')).toBe(1);
      expect(await changeEventsCounted(h, 'outcome="matched",reason="coalesced"')).toBe(1);

      const run = await eventRun(h, 1);
      expect(run).toMatchObject({ state: 'drifted', kind: 'drift' });
      // A plan with changes indexed the stack from its prior state, by what events name the resources with.
      const [indexed] = await h.running.context.store.listResourceIndexes({ stack: STACK });
      const identifiersOf = (address: string) => indexed!.resources.find((r) => r.address === address)!.identifiers;
      expect(identifiersOf('aws_s3_object.config')).toEqual(
        expect.arrayContaining([`${BUCKET}/config/app.json`, `arn:aws:s3:::${BUCKET}/config/app.json`]),
      );
      expect(identifiersOf('aws_s3_bucket.assets')).toEqual(expect.arrayContaining([BUCKET, `arn:aws:s3:::${BUCKET}`]));
      expect(indexed!.serial).toBeUndefined();
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
      // The alert shows the latest change to each attribute (both clicks set the tags); its thread lists both.
      expect(text).toContain('1 more change in the thread');
      const thread = h.emulator.messages(CHANNEL).filter((m) => m.threadTs === alert!.ts);
      expect(thread.map((m) => m.text)).toContain('2 changes to the drifted resources');
      // Who made it is the resource's cause too: under Why, and for policies (`drift.causes`).
      const analysis = await loadAnalysis(h.running.context.deps, run.id);
      expect(analysis?.causes?.['aws_s3_object.config']).toEqual([
        expect.objectContaining({ kind: 'out_of_band', how: 'console', eventName: 'PutObjectTagging' }),
      ]);
      expect(text).toMatch(/\*Why\*\\n• `aws_s3_object.config`: changed in the console by \*alice/);
    });

    it('takes an event from SQS, deletes the message, and attributes the next change', async () => {
      await changeOutOfBand(world.client, BUCKET, 'README.md', { tags: { team: 'c' } });
      const sender = new SQSClient({
        endpoint: world.sqs.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: world.s3.accessKeyId, secretAccessKey: world.s3.secretAccessKey },
      });
      h.now.value = new Date();
      await sender.send(
        new SendMessageCommand({
          QueueUrl: world.sqs.queueUrl(QUEUE),
          MessageBody: JSON.stringify(tagEvent(BUCKET, 'README.md', 'bob-cli', 'e-5')),
        }),
      );
      sender.destroy();
      const run = await eventRun(h, 2);
      expect(run.state).toBe('drifted');
      const attribution = await loadAttribution(h.running.context.deps, run.id);
      // Alice's changes to the config object still drift: who made them stays said beside bob's.
      expect(attribution).toMatchObject({
        status: 'found',
        changes: [
          { eventId: 'e-3', resource: 'aws_s3_object.config' },
          { eventId: 'e-4', resource: 'aws_s3_object.config' },
          { eventId: 'e-5', how: 'cli', eventName: 'PutObjectTagging', resource: 'aws_s3_object.readme' },
        ],
      });
      await h.idle();
      expect(world.sqs.bodies(QUEUE)).toEqual([]);
      const alert = alerts(h, CHANNEL).find((m) => textOf(m).includes(`Run \`${run.id}\``));
      expect(textOf(alert)).toContain('with the AWS CLI: `PutObjectTagging`');
      expect(textOf(alert)).toContain('`aws_s3_object.readme`');
    });

    it('judges the same drift again when an event says root made it (a rule on drift.changes)', async () => {
      const before = await eventRun(h, 2);
      expect((await post(h, tagEvent(BUCKET, 'README.md', 'root', 'e-r00t'))).status).toBe(202);
      const run = await eventRun(h, 3);
      expect(run.state).toBe('drifted');
      // The plan is the one already analysed (no `show -json`), but who made it is new to the policies.
      const policyOf = async (r: Run) =>
        JSON.parse(String(await loadArtifact(h.running.context.deps, r.id, 'policy'))) as {
          fired: string[];
        };
      expect((await policyOf(before)).fired).toEqual([]);
      expect((await policyOf(run)).fired).toEqual(['root-changes-need-security']);
      // Who made it before stands beside who made it now, for the policies and the alert alike.
      const who = async (r: Run) => {
        const attribution = await loadAttribution(h.running.context.deps, r.id);
        return attribution?.status === 'found' ? attribution.changes.map((c) => c.eventId) : [];
      };
      const earlier = await who(before);
      expect(earlier.length).toBeGreaterThan(0);
      expect((await who(run)).sort()).toEqual([...earlier, 'e-r00t'].sort());
      // Judged now, so audited now.
      const audit = await h.running.context.store.listAudit({ runId: run.id });
      expect(audit.filter((e) => e.action === 'policies_fired')).toHaveLength(1);
    });

    it('answers the lookup of a check still running when serve stops: the drift names who made it', async () => {
      await changeOutOfBand(world.client, BUCKET, 'README.md', { tags: { team: 'stopping' } });
      trail.add(tagEvent(BUCKET, 'README.md', 'bob-cli', '0000b0b0-stop').detail as unknown as TrailRecord);
      const asked = trail.calls().length;
      trail.hold();
      const checked = h.running.scheduler.request(STACK, 'manual');
      await waitFor('the check to ask CloudTrail', () => (trail.held() > 0 ? true : undefined), 120_000);

      const stopped = h.running.stop();
      // The doors are closed: were the CloudTrail client released with them, the lookup under way was lost.
      await waitFor('change events to stop', () =>
        h.logs.some((l) => l.includes('change events off')) ? true : undefined,
      );
      trail.release();
      const outcome = await checked;
      await stopped;
      expect(outcome.status).toBe('drifted');
      expect(h.logs.filter((l) => l.includes('CloudTrail did not answer'))).toEqual([]);
      expect(
        trail
          .calls()
          .slice(asked)
          .every((c) => c.status === 200),
      ).toBe(true);

      // Read back after a restart: the stopped serve closed its store.
      await h.restart();
      const run = 'run' in outcome ? outcome.run : undefined;
      // Beside who made the drift still standing from the checks before.
      expect(await loadAttribution(h.running.context.deps, run!.id)).toMatchObject({
        status: 'found',
        changes: expect.arrayContaining([
          expect.objectContaining({
            eventName: 'PutObjectTagging',
            eventId: '0000b0b0-stop',
            resource: 'aws_s3_object.readme',
          }),
        ]),
      });
    }, 240_000);

    it('matches events after a restart with the index it kept', async () => {
      await h.restart();
      expect((await post(h, tagEvent(BUCKET, 'README.md', 'bob-cli', 'e-6'))).status).toBe(202);
      expect(await changeEventsCounted(h, 'outcome="matched",reason="scheduled"')).toBe(1);
      expect(await changeEventsCounted(h, 'outcome="unmatched",reason=""')).toBe(0);
      // Its check waits out the debounce; closing drops it, as any stop does (the next sweep sees the drift).
    });
  },
);
