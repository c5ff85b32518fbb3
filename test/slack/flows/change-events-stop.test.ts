/**
 * Stopping `serve` with change events on, while a check runs: the doors close first (no new check is
 * asked for), and the CloudTrail client the checks ask who made drift is released only once the checks
 * ended. A sweep's check on real drift (an S3 object's tags changed out of band) asks CloudTrail, whose
 * emulator holds the answer until the stop has closed the doors; the alert still names who.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAttribution } from '../../../src/services/stored-attribution.js';
import {
  type ChangeEventsServe,
  EVENTS_BUCKET as BUCKET,
  EVENTS_STACK as STACK,
  startChangeEventsServe,
  tagEvent,
} from '../../helpers/change-events-serve.js';
import {
  type CloudTrailEmulator,
  startCloudTrailEmulator,
  type TrailRecord,
} from '../../helpers/cloudtrail-emulator.js';
import { waitFor } from '../../helpers/process-wait.js';
import { changeOutOfBand, type S3ObjectSpec } from '../../helpers/s3-object-stack.js';
import { HAS_AWS_MIRROR } from '../../helpers/terraform-env.js';

const OBJECTS: S3ObjectSpec[] = [
  { name: 'readme', key: 'README.md', content: 'hi', contentType: 'text/markdown', tags: { team: 'a' } },
];

describe.skipIf(!HAS_AWS_MIRROR)('change events: serve stops while a check asks CloudTrail', () => {
  let trail: CloudTrailEmulator;
  let world: ChangeEventsServe;

  beforeAll(async () => {
    trail = await startCloudTrailEmulator();
    world = await startChangeEventsServe({ objects: OBJECTS, debounce: '1s', cloudTrailEndpoint: trail.endpoint });
  }, 240_000);

  afterAll(async () => {
    trail?.release();
    await world?.close();
    await trail?.close();
  });

  it('answers the lookup of a check still running when the stop began: the drift names who made it', async () => {
    const { h } = world;
    await changeOutOfBand(world.client, BUCKET, 'README.md', { tags: { team: 'c' } });
    trail.add(tagEvent(BUCKET, 'README.md', 'bob-cli', '0000b0b0-stop').detail as unknown as TrailRecord);
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
    // The bucket's lookup, held across the stop, then the object's.
    expect(trail.calls().map((c) => c.status)).toEqual([200, 200]);

    // Read back after a restart: the stopped serve closed its store.
    await h.restart();
    const run = 'run' in outcome ? outcome.run : undefined;
    const attribution = await loadAttribution(h.running.context.deps, run!.id);
    expect(attribution).toMatchObject({
      status: 'found',
      changes: [{ eventName: 'PutObjectTagging', eventId: '0000b0b0-stop', resource: 'aws_s3_object.readme' }],
    });
  }, 240_000);
});
