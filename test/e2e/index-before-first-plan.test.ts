/**
 * A stack driftgate has never planned (a first deploy, a stack just added to the config) is indexed from
 * its state as serve starts, so that a change event naming its resources matches at once rather than
 * counting as unmatched until the schedule plans it. Real terraform with the AWS provider from the
 * offline mirror against the local S3 server, `driftgate serve` with change events on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  atStartIndexed,
  type ChangeEventsServe,
  changeEventsCounted,
  EVENTS_BUCKET as BUCKET,
  EVENTS_STACK as STACK,
  postChangeEvent,
  startChangeEventsServe,
  tagEvent,
} from '../helpers/change-events-serve.js';
import { waitFor } from '../helpers/process-wait.js';
import { changeOutOfBand, type S3ObjectSpec } from '../helpers/s3-object-stack.js';
import { CHANNEL, type SlackServe } from '../helpers/slack-serve.js';
import { HAS_AWS_MIRROR } from '../helpers/terraform-env.js';
import { alerts, textOf } from './fixtures.js';

const ALICE = 'U0ALICE';
const OBJECTS: S3ObjectSpec[] = [
  { name: 'config', key: 'config/app.json', content: '{}', contentType: 'application/json', tags: { team: 'a' } },
];

describe.skipIf(!HAS_AWS_MIRROR)('change events for a stack never planned', () => {
  let world: ChangeEventsServe;
  let h: SlackServe;

  beforeAll(async () => {
    // Applied with terraform, never planned by driftgate: serve started before its state existed.
    world = await startChangeEventsServe({
      objects: OBJECTS,
      debounce: '1s',
      firstCheck: false,
      slackUsers: { 'alice@example.com': ALICE },
    });
    h = world.h;
  }, 600_000);

  afterAll(async () => {
    await world?.close();
  });

  it('indexes it from its state at start, and checks it on the first event naming its resources', async () => {
    expect(await h.running.context.store.listResourceIndexes({ stack: STACK })).toEqual([]);
    // A deploy: the next start finds the stack in the config and nowhere in the index.
    await h.restart();
    await waitFor('the stack indexed at start', () => (h.logs.filter(atStartIndexed).length === 2 ? true : undefined));
    expect(h.logs.filter(atStartIndexed).at(-1)).toContain('"indexed":1');
    const [indexed] = await h.running.context.store.listResourceIndexes({ stack: STACK });
    // From the state itself (its serial and lineage kept, so an unchanged state is not walked again).
    expect(indexed).toMatchObject({ stack: STACK, serial: expect.any(Number), lineage: expect.any(String) });
    expect(indexed!.resources.map((r) => r.address).sort()).toEqual(['aws_s3_bucket.assets', 'aws_s3_object.config']);
    expect(await h.running.context.store.listRuns({ stack: STACK })).toEqual([]);

    await changeOutOfBand(world.client, BUCKET, 'config/app.json', { tags: { team: 'b' } });
    // serve's clock is the test's: an event made now must not be ahead of it.
    h.now.value = new Date();
    expect((await postChangeEvent(h.base, tagEvent(BUCKET, 'config/app.json', 'alice-console', 'e-1'))).status).toBe(
      202,
    );
    expect(await changeEventsCounted(h, 'outcome="matched",reason="scheduled"')).toBe(1);
    expect(await changeEventsCounted(h, 'outcome="unmatched",reason=""')).toBe(0);
    const run = await waitFor(
      'the event check',
      async () => {
        const [latest] = await h.running.context.store.listRuns({ stack: STACK });
        return latest && latest.state !== 'planning' ? latest : undefined;
      },
      300_000,
    );
    expect(run).toMatchObject({ trigger: 'event', state: 'drifted' });
    await h.idle();
    const alert = alerts(h, CHANNEL).find((m) => textOf(m).includes(`Run \`${run.id}\``));
    expect(textOf(alert)).toContain(`<@${ALICE}>`);
    expect(textOf(alert)).toContain('`aws_s3_object.config`');
  }, 600_000);
});
