/**
 * Who wrote the state outside driftgate, for real: a stack whose state is an object in an S3 backend (the
 * local S3 server), `driftgate serve` with change events on, and someone pushing an edited state from
 * their own terraform (a real `state push`, a real write of the object). The EventBridge event S3 sends
 * for that PutObject (a CloudTrail data event: LookupEvents never has it) is POSTed: the stack is checked,
 * and the drift's cause names who wrote the state, in the alert, the stored analysis and the policy input.
 * driftgate's own write of the same object is its own apply, never a cause.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATE_ADDRESS } from '../../src/domain/change-events/state-address.js';
import type { Run } from '../../src/domain/run/model.js';
import { loadArtifact } from '../../src/services/runtime/artifacts.js';
import { loadAnalysis } from '../../src/services/check/stored-analysis.js';
import { approvers } from '../helpers/config-builder.js';
import { type PagerdutyReceiver, startPagerdutyReceiver } from '../helpers/pagerduty-receiver.js';
import {
  changeEventsCounted,
  eventRun,
  indexedAtStart,
  postChangeEvent,
  s3CallEvent,
} from '../helpers/change-events-serve.js';
import { type LocalS3, s3BackendHcl, startLocalS3 } from '../helpers/s3rver.js';
import { CHANNEL, type SlackServe, startSlackServe } from '../helpers/slack-serve.js';
import { LEAD1, LEAD2, LEAD3, NETWORK, alerts, driftAgain, textOf } from './fixtures.js';

const STACK = 'staging/network';
const STATE_BUCKET = 'state';
const STATE_KEY = 'staging/network.tfstate';
const SECRET = 'state-writer-events-secret-0123456789abcdef';
const PD_KEY = 'c0ffee00c0ffee00c0ffee00c0ffee01';

const s3Backend = (endpoint: string) => s3BackendHcl(endpoint, { bucket: STATE_BUCKET, key: STATE_KEY });

describe('a state written outside driftgate, and who wrote it', () => {
  let s3: LocalS3;
  let pagerduty: PagerdutyReceiver;
  let h: SlackServe;
  const post = (body: unknown) => {
    h.now.value = new Date();
    return postChangeEvent(h.base, body, SECRET);
  };

  beforeAll(async () => {
    s3 = await startLocalS3([STATE_BUCKET]);
    pagerduty = await startPagerdutyReceiver();
    h = await startSlackServe({
      stacks: { [STACK]: `${s3Backend(s3.endpoint)}${NETWORK}` },
      stackSettings: { [STACK]: { environment: 'staging' } },
      config: {
        ...approvers({ 'sre-leads': [LEAD1, LEAD2], security: [LEAD3] }, [
          { stacks: '*', count: 1, from: ['sre-leads'] },
        ]),
        policies: {
          rules: [
            {
              name: 'hand-written-state-needs-security',
              scope: 'plan',
              when: 'drift.causes.exists(c, c.kind == "state_outside" && c.who != "")',
              effect: 'require_approval',
              count: 1,
              from: ['security'],
            },
          ],
        },
        pagerduty: { routing: [{ environments: ['staging'], routingKeyEnv: 'PD_KEY' }] },
        changeEvents: {
          secretEnv: 'EVENTS_SECRET',
          ownIdentities: ['arn:aws:iam::*:role/driftgate-*'],
          debounce: '1s',
          // Who wrote an object is never in CloudTrail's LookupEvents: only the event can say.
          cloudTrail: { lookup: false },
        },
      },
      env: {
        EVENTS_SECRET: SECRET,
        PD_KEY,
        PAGERDUTY_EVENTS_URL: pagerduty.eventsUrl,
        AWS_ACCESS_KEY_ID: s3.accessKeyId,
        AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
        AWS_EC2_METADATA_DISABLED: 'true',
      },
    });
    // serve reads the never-planned stack's state as it starts, in the same directory.
    await indexedAtStart(h);
    await h.applyWithTerraform(STACK);
    const first = await h.running.scheduler.request(STACK);
    if (first.status !== 'no_changes') throw new Error(`the first check was ${first.status}, not clean`);
  });

  afterAll(async () => {
    await h?.close();
    await s3?.close();
    await pagerduty?.close();
  });

  it('indexes the state object beside the resources, from the backend block', async () => {
    const [indexed] = await h.running.context.store.listResourceIndexes({ stack: STACK });
    expect(indexed!.resources.find((r) => r.address === STATE_ADDRESS)?.identifiers).toEqual(
      expect.arrayContaining([`${STATE_BUCKET}/${STATE_KEY}`, `arn:aws:s3:::${STATE_BUCKET}/${STATE_KEY}`]),
    );
  });

  it("names who pushed the state in the drift's cause: alert, page, analysis and policy input", async () => {
    // driftgate's own apply role writing the object is its own apply: counted, never queued.
    expect((await post(s3CallEvent('PutObject', STATE_BUCKET, STATE_KEY, 'driftgate-apply', 'e-own'))).status).toBe(
      202,
    );
    expect(await changeEventsCounted(h, 'outcome="ignored",reason="own_apply"')).toBe(1);

    // bob edits the state from his laptop: `terraform state push` writes the object in the backend.
    await driftAgain(h, STACK, 'bobs-team');
    expect((await post(s3CallEvent('PutObject', STATE_BUCKET, STATE_KEY, 'bob-cli', 'e-bob'))).status).toBe(202);
    expect(await changeEventsCounted(h, 'outcome="matched",reason="scheduled"')).toBe(1);

    const run: Run = await eventRun(h, 1, STACK);
    expect(run).toMatchObject({ state: 'drifted', kind: 'drift' });
    const analysis = await loadAnalysis(h.running.context.deps, run.id);
    const [cause] = analysis!.causes!['terraform_data.vpc']!;
    expect(cause).toMatchObject({
      kind: 'state_outside',
      since: 'clean_check',
      writer: { who: 'bob (IAM user)', how: 'cli', eventName: 'PutObject' },
    });
    if (cause?.kind !== 'state_outside') throw new Error('no state_outside cause');
    expect(cause.to.serial).toBeGreaterThan(cause.from.serial);

    const policy = JSON.parse(String(await loadArtifact(h.running.context.deps, run.id, 'policy'))) as {
      fired: string[];
    };
    expect(policy.fired).toEqual(['hand-written-state-needs-security']);

    await h.idle();
    const [alert, ...more] = alerts(h, CHANNEL);
    expect(more).toEqual([]);
    expect(textOf(alert)).toContain(
      `the state was written outside driftgate with the AWS CLI by *bob (IAM user)* <!date^${Math.floor(new Date(cause.writer!.at).getTime() / 1000)}`,
    );
    expect(textOf(alert)).toContain(`serial ${cause.from.serial} → ${cause.to.serial}, no driftgate apply in between`);

    // On-call's page says why too, with when as written (a page has no reader's clock).
    const [page, ...pages] = pagerduty.accepted();
    expect(pages).toEqual([]);
    expect((page!.payload as { custom_details: { why?: string[] } }).custom_details.why).toEqual([
      `terraform_data.vpc: the state was written outside driftgate with the AWS CLI by bob (IAM user) at ${cause.writer!.at} (PutObject): serial ${cause.from.serial} → ${cause.to.serial}, no driftgate apply in between`,
    ]);
  });
});
