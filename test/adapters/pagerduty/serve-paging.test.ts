import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startPagerdutyReceiver, type PagerdutyReceiver } from '../../helpers/pagerduty-receiver.js';
import { useSlackServe } from '../../helpers/use-slack-serve.js';
import { NETWORK, makeDrift } from '../../slack/flows/fixtures.js';

const KEY = 'c0ffee00c0ffee00c0ffee00c0ffee00';
const startServe = useSlackServe();

describe('driftgate serve pages on-call', () => {
  let receiver: PagerdutyReceiver;
  beforeEach(async () => {
    receiver = await startPagerdutyReceiver();
  });
  afterEach(() => receiver.close());

  it('a prod drift pages once and resolves when the drift is gone; a dev drift pages nobody', async () => {
    const h = await startServe({
      stacks: { 'prod/network': NETWORK, 'dev/network': NETWORK },
      stackSettings: { 'prod/network': 'environment: prod', 'dev/network': 'environment: dev' },
      extraConfig: 'pagerduty:\n  routing:\n    - { environments: [prod], routingKeyEnv: PD_KEY_PROD }\n  severity: { prod: critical }\n',
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
    expect(receiver.accepted()[0]).toMatchObject({ payload: { severity: 'critical', summary: `Drift in prod/network: ~1 (run ${"run" in drifted ? drifted.run?.id : "?"})` } });
    expect(h.logs.join('\n')).not.toContain(KEY);
  });
});
