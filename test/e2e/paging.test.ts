import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigPatch } from '../helpers/config-builder.js';
import { startPagerdutyReceiver, type PagerdutyReceiver } from '../helpers/pagerduty-receiver.js';
import { CHANNEL } from '../helpers/slack-serve.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { NETWORK, alerts, makeDrift } from './fixtures.js';

const KEY = 'c0ffee00c0ffee00c0ffee00c0ffee00';
const PAGERDUTY: ConfigPatch = {
  pagerduty: { routing: [{ environments: ['prod'], routingKeyEnv: 'PD_KEY_PROD' }], severity: { prod: 'critical' } },
};
const startServe = useSlackServe();
const detailsOf = (page: Record<string, unknown> | undefined) =>
  (page?.payload as { custom_details?: Record<string, unknown> } | undefined)?.custom_details;

describe('driftgate serve pages on-call', () => {
  let receiver: PagerdutyReceiver;
  beforeEach(async () => {
    receiver = await startPagerdutyReceiver();
  });
  afterEach(() => receiver.close());

  it('a prod drift pages once and resolves when the drift is gone; a dev drift pages nobody', async () => {
    const h = await startServe({
      stacks: { 'prod/network': NETWORK, 'dev/network': NETWORK },
      stackSettings: { 'prod/network': { environment: 'prod' }, 'dev/network': { environment: 'dev' } },
      config: PAGERDUTY,
      env: { PD_KEY_PROD: KEY, PAGERDUTY_EVENTS_URL: receiver.eventsUrl },
    });
    await makeDrift(h, 'prod/network');
    await makeDrift(h, 'dev/network');
    const drifted = await h.running.scheduler.request('prod/network');
    await h.running.scheduler.request('dev/network');
    await h.running.scheduler.request('prod/network');
    await h.settle();
    await h.applyWithTerraform('prod/network');
    expect((await h.running.scheduler.request('prod/network')).status).toBe('no_changes');
    await h.settle();

    expect(receiver.accepted().map((p) => [p.event_action, p.dedup_key])).toEqual([
      ['trigger', 'driftgate:prod/network'],
      ['resolve', 'driftgate:prod/network'],
    ]);
    expect(receiver.accepted()[0]).toMatchObject({
      payload: {
        severity: 'critical',
        summary: `Drift in prod/network: ~1 (run ${'run' in drifted ? drifted.run?.id : '?'})`,
      },
    });
    // The page went out before the alert was posted: it names the channel the alert is in.
    expect(detailsOf(receiver.accepted()[0])).toMatchObject({ slack_channel: CHANNEL });
    expect(detailsOf(receiver.accepted()[0])).not.toHaveProperty('slack_message');
    expect(h.logs.join('\n')).not.toContain(KEY);
  });

  it('a page retried after its alert was posted links to the alert', async () => {
    const h = await startServe({
      stacks: { 'prod/network': NETWORK },
      stackSettings: { 'prod/network': { environment: 'prod' } },
      config: PAGERDUTY,
      env: { PD_KEY_PROD: KEY, PAGERDUTY_EVENTS_URL: receiver.eventsUrl },
    });
    await makeDrift(h, 'prod/network');
    receiver.failNext(1, { status: 503 });
    const outcome = await h.running.scheduler.request('prod/network');
    if (outcome.status !== 'drifted') throw new Error(`expected drift, got ${outcome.status}`);
    await h.settle();
    const [alert] = alerts(h, CHANNEL);
    expect(alert).toBeDefined();
    // The first try, refused, had gone out before the alert was posted.
    expect(receiver.calls().map((c) => [c.status, detailsOf(c.body)?.slack_channel])).toEqual([[503, CHANNEL]]);
    h.now.value = new Date(h.now.value.getTime() + 5 * 60_000);
    await h.settle();

    const [page] = receiver.accepted();
    const permalink = `https://emulated.slack.com/archives/${CHANNEL}/p${alert!.ts.replace('.', '')}`;
    expect(page).toMatchObject({
      client_url: permalink,
      payload: { custom_details: { slack_message: permalink, run_id: outcome.run.id } },
    });
    expect(detailsOf(page)).not.toHaveProperty('slack_channel');
    // The refused try is PagerDuty's failure in the metrics, not Slack's.
    const metrics = await (await fetch(`${h.base}/metrics`)).text();
    expect(metrics).toContain('driftgate_pagerduty_errors_total{retriable="true"} 1');
    expect(metrics).not.toMatch(/driftgate_slack_api_errors_total\{method="pagerduty/);
  });
});
