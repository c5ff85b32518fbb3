/**
 * Benchmark: time from an out-of-band change to its Slack alert, with change events. A real serve (the
 * test harness: real terraform with the AWS provider mirror, s3rver, the Slack emulator), debounce 5 s;
 * each round changes another object's tags with the S3 client, POSTs the event AWS would send, and
 * waits for the alert. Set beside an hourly schedule's expected delay (half the period, plus the plan).
 */
import {
  EVENTS_BUCKET,
  EVENTS_STACK,
  postChangeEvent,
  startChangeEventsServe,
  tagEvent,
} from '../test/helpers/change-events-serve.js';
import { changeOutOfBand, type S3ObjectSpec } from '../test/helpers/s3-object-stack.js';
import { CHANNEL } from '../test/helpers/slack-serve.js';
import { AWS_MIRROR_SKIP_REASON, HAS_AWS_MIRROR } from '../test/helpers/terraform-env.js';

const ROUNDS = 3;
const DEBOUNCE_S = 5;
const HOURLY_EXPECTED_S = 30 * 60;

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

export async function benchChangeEventsAlert(): Promise<{ markdown: string }> {
  const title = '## Change events: from an out-of-band change to the Slack alert';
  if (!HAS_AWS_MIRROR) return { markdown: `${title}\n\nSkipped: ${AWS_MIRROR_SKIP_REASON}.\n` };
  const objects: S3ObjectSpec[] = Array.from({ length: ROUNDS }, (_, i) => ({
    name: `o${i}`,
    key: `objects/${i}.json`,
    content: '{}',
    contentType: 'application/json',
    tags: { team: 'a' },
  }));
  const world = await startChangeEventsServe({ objects, debounce: `${DEBOUNCE_S}s` });
  const { h } = world;
  const toAlert: number[] = [];
  const plans: number[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const key = objects[i]!.key;
      await changeOutOfBand(world.client, EVENTS_BUCKET, key, { tags: { team: `b${i}` } });
      const started = performance.now();
      const res = await postChangeEvent(h.base, tagEvent(EVENTS_BUCKET, key, 'alice-console', `bench-${i}`));
      if (res.status !== 202) throw new Error(`the event was answered ${res.status}`);
      const alerted = () => h.emulator.messages(CHANNEL).filter((m) => !m.threadTs).length > i;
      // The serve's clock is the harness's fixed one: the check's start is seen from here instead.
      const checking = async () => (await h.running.context.store.listRuns({ stack: EVENTS_STACK })).length > i + 1;
      let checkStarted: number | undefined;
      while (!alerted()) {
        if (checkStarted === undefined && (await checking())) checkStarted = performance.now();
        await new Promise((r) => setTimeout(r, 20));
      }
      const now = performance.now();
      toAlert.push((now - started) / 1000);
      plans.push((now - (checkStarted ?? now)) / 1000);
    }
  } finally {
    await world.close();
  }
  const s = (v: number) => `${v.toFixed(1)} s`;
  const alert = median(toAlert);
  const markdown = [
    title,
    '',
    `Debounce ${DEBOUNCE_S} s; ${ROUNDS} rounds, each another object's tags changed with the S3 client and the event POSTed to \`/events/aws\`; real terraform (AWS provider) against s3rver, the Slack emulator. Median of the rounds.`,
    '',
    '| | change → alert |',
    '| --- | ---: |',
    `| change events (debounce ${DEBOUNCE_S} s, then the check and the alert: ${s(median(plans))}) | ${s(alert)} (rounds: ${toAlert.map(s).join(', ')}) |`,
    `| hourly schedule, expected (half the period + the same check) | ${s(HOURLY_EXPECTED_S + median(plans))} |`,
    '',
    `${((HOURLY_EXPECTED_S + median(plans)) / alert).toFixed(0)}× sooner.`,
    '',
  ].join('\n');
  return { markdown };
}
