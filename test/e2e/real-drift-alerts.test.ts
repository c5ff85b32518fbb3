/**
 * What a drift alert counts and who it names, end to end on the real AWS provider (from the offline
 * mirror) against the local S3 server: nine objects the code gives no tags, which the provider reads back
 * as `{}` where the state holds null on every refresh (noise, planned as no-op), `driftgate serve` with
 * change events on and CloudTrail lookups against the emulator. Noise alone raises nothing and asks
 * CloudTrail nothing; the one object changed by hand, last of nine in the index, is the one looked up and
 * named; and who made each resource's drift stays said until that resource's drift ends. One serve for
 * the file: each provider start costs seconds.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '../../src/domain/run/model.js';
import { loadAnalysis } from '../../src/services/check/stored-analysis.js';
import { loadAttribution } from '../../src/services/check/stored-attribution.js';
import {
  type ChangeEventsServe,
  eventRun,
  EVENTS_BUCKET as BUCKET,
  EVENTS_STACK as STACK,
  postChangeEvent,
  startChangeEventsServe,
  tagEvent,
} from '../helpers/change-events-serve.js';
import { type CloudTrailEmulator, startCloudTrailEmulator, type TrailRecord } from '../helpers/cloudtrail-emulator.js';
import { changeOutOfBand, type S3ObjectSpec } from '../helpers/s3-object-stack.js';
import { CHANNEL, type SlackServe } from '../helpers/slack-serve.js';
import { HAS_AWS_MIRROR } from '../helpers/terraform-env.js';
import { alerts, textOf } from './fixtures.js';

const ALICE = 'U0ALICE';
/** No tags, no metadata: what refresh reads back as `{}` for each of them is noise. */
const OBJECTS: S3ObjectSpec[] = Array.from({ length: 9 }, (_, i) => ({
  name: `o${i + 1}`,
  key: `o${i + 1}.txt`,
  content: `object ${i + 1}`,
  contentType: 'text/plain',
}));

/** A call on an object by `who`, as S3 sends it to EventBridge and CloudTrail keeps it. */
function callOn(key: string, who: Parameters<typeof tagEvent>[2], id: string, eventName = 'CopyObject') {
  const event = tagEvent(BUCKET, key, who, id);
  return { ...event, detail: { ...event.detail, eventName } };
}

describe.skipIf(!HAS_AWS_MIRROR)('drift alerts: real drift only, and who made each drift until it ends', () => {
  let world: ChangeEventsServe;
  let h: SlackServe;
  let trail: CloudTrailEmulator;
  const store = () => h.running.context.store;
  const attributionOf = async (run: Run) => {
    const found = await loadAttribution(h.running.context.deps, run.id);
    return found?.status === 'found' ? found.changes.map((c) => [c.principal.name, c.resource]) : found;
  };
  /** The alert of a run, once the notifier posted it. */
  const alertOf = async (run: Run) => {
    await h.idle();
    return alerts(h, CHANNEL).find((m) => textOf(m).includes(`Run \`${run.id}\``));
  };
  /** serve's clock is the test's: set to now, so that an event made now is not ahead of it. */
  const post = (event: unknown) => {
    h.now.value = new Date();
    return postChangeEvent(h.base, event);
  };
  const check = async (): Promise<Run> => {
    const outcome = await h.running.scheduler.request(STACK, 'manual');
    if (!('run' in outcome) || !outcome.run) throw new Error(`the check was ${outcome.status}`);
    return outcome.run;
  };

  beforeAll(async () => {
    trail = await startCloudTrailEmulator();
    // Its first check must be clean: startChangeEventsServe throws when it is not.
    world = await startChangeEventsServe({
      objects: OBJECTS,
      debounce: '1s',
      cloudTrailEndpoint: trail.endpoint,
      slackUsers: { 'alice@example.com': ALICE },
    });
    h = world.h;
  }, 600_000);

  afterAll(async () => {
    await world?.close();
    await trail?.close();
  });

  it('raises no alert and asks CloudTrail nothing for a plan whose only outside changes are noise', async () => {
    // Alone, terraform itself calls the noise no change (exit code 0): driftgate does not even read the plan.
    const [first] = await store().listRuns({ stack: STACK });
    expect(first).toMatchObject({ state: 'no_changes' });
    await h.idle();
    expect(alerts(h, CHANNEL)).toEqual([]);
    expect(trail.calls()).toEqual([]);

    // Beside a change the code plans (an output added), the plan is read: the noise is still not drift.
    const main = join(h.stackDir(STACK), 'main.tf');
    const code = await readFile(main, 'utf8');
    await writeFile(main, `${code}\noutput "objects" {\n  value = 9\n}\n`);
    const withOutput = await check();
    const analysis = await loadAnalysis(h.running.context.deps, withOutput.id);
    expect(analysis?.drift).toEqual([]);
    expect(analysis?.driftNotRelevant).toEqual(expect.arrayContaining(OBJECTS.map((o) => `aws_s3_object.${o.name}`)));
    const text = textOf(await alertOf(withOutput));
    expect(text).toContain('1 output will change');
    expect(text).not.toContain('changed outside Terraform');
    expect(text).not.toContain('CloudTrail');
    expect(trail.calls()).toEqual([]);
    await writeFile(main, code);
    expect((await check()).state).toBe('no_changes');
  }, 600_000);

  it('looks up and names the one object changed by hand, last of nine noisy ones, and counts 1', async () => {
    await changeOutOfBand(world.client, BUCKET, 'o9.txt', { contentType: 'text/html' });
    trail.add(callOn('o9.txt', 'bob-cli', '0000b0b0-o9').detail as unknown as TrailRecord);
    const run = await check();
    expect(run.state).toBe('drifted');
    expect(await attributionOf(run)).toEqual([['bob', 'aws_s3_object.o9']]);
    // Only the changed object was asked about: by its name, which found who changed it.
    expect(trail.calls().map((c) => c.body.LookupAttributes)).toEqual([
      [{ AttributeKey: 'ResourceName', AttributeValue: `${BUCKET}/o9.txt` }],
    ]);
    const text = textOf(await alertOf(run));
    expect(text).toContain('1 resource changed outside Terraform');
    expect(text).toContain('`aws_s3_object.o9`');
    expect(text).toContain('with the AWS CLI: `CopyObject`');
    expect(text).not.toContain('not looked up');
    expect(text).not.toContain('aws_s3_object.o1');
    // Put back as the code has it: the drift ends.
    await changeOutOfBand(world.client, BUCKET, 'o9.txt', { contentType: 'text/plain' });
    expect((await check()).state).toBe('no_changes');
  }, 600_000);

  it('keeps who made a drift when another comes, and drops it once that resource is put back', async () => {
    // alice changes o1; only her event says so (CloudTrail's lookups know nothing of it).
    await changeOutOfBand(world.client, BUCKET, 'o1.txt', { contentType: 'text/html' });
    expect((await post(callOn('o1.txt', 'alice-console', 'e-alice'))).status).toBe(202);
    const first = await eventRun(h, 1);
    expect(first.state).toBe('drifted');
    expect(await attributionOf(first)).toEqual([['alice@example.com', 'aws_s3_object.o1']]);

    // Later bob changes o2: the new alert names both, alice's change being still there.
    await changeOutOfBand(world.client, BUCKET, 'o2.txt', { contentType: 'text/csv' });
    expect((await post(callOn('o2.txt', 'bob-cli', 'e-bob'))).status).toBe(202);
    const second = await eventRun(h, 2);
    expect(second.state).toBe('drifted');
    expect(await attributionOf(second)).toEqual([
      ['alice@example.com', 'aws_s3_object.o1'],
      ['bob', 'aws_s3_object.o2'],
    ]);
    const both = textOf(await alertOf(second));
    expect(both).toContain('2 resources changed outside Terraform');
    expect(both).toContain(`<@${ALICE}>`);
    expect(both).toContain('*bob (IAM user)*');

    // o1 put back: its drift ended, and who made it goes with it; bob's still stands.
    await changeOutOfBand(world.client, BUCKET, 'o1.txt', { contentType: 'text/plain' });
    const third = await check();
    expect(third.state).toBe('drifted');
    expect(await attributionOf(third)).toEqual([['bob', 'aws_s3_object.o2']]);
    const after = textOf(await alertOf(third));
    expect(after).toContain('1 resource changed outside Terraform');
    expect(after).toContain('*bob (IAM user)*');
    expect(after).not.toContain(ALICE);
  }, 600_000);
});
