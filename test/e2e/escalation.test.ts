import { describe, expect, it } from 'vitest';
import { CHANNEL } from '../helpers/slack-serve.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { APPROVERS, LEAD1, NETWORK, alerts, makeDrift, textOf } from './fixtures.js';

const startServe = useSlackServe();

describe('escalation of drift nobody resolved', () => {
  it('raises it once after escalateAfter, in the alert thread and the channel, mentioning on-call; never while silenced', async () => {
    const h = await startServe({
      stacks: { 'prod/network': NETWORK, 'prod/quiet': NETWORK },
      stackSettings: { 'prod/network': { environment: 'prod' }, 'prod/quiet': { environment: 'prod' } },
      config: {
        ...APPROVERS,
        slack: { digestWindow: '0s', onCall: { usergroup: 'S0ONCALL', environments: ['prod'], escalateAfter: '1h' } },
      },
    });
    await makeDrift(h, 'prod/network');
    await makeDrift(h, 'prod/quiet');
    await h.running.scheduler.request('prod/network');
    await h.running.scheduler.request('prod/quiet');
    await h.settle();
    const slackApp = h.running.slackApp!;
    expect(await slackApp.escalate()).toBe(0);

    const silenced = await h.command('silence prod/quiet 1d maintenance', LEAD1);
    expect(silenced.status).toBe(200);
    await h.settle();
    h.now.value = new Date(h.now.value.getTime() + 2 * 3600_000);
    expect(await slackApp.escalate()).toBe(1);
    expect(await slackApp.escalate()).toBe(0);
    await h.settle();

    const alert = alerts(h, CHANNEL).find((m) => textOf(m).includes('prod/network'))!;
    const replies = h.emulator.messages(CHANNEL).filter((m) => m.threadTs === alert.ts);
    expect(replies).toHaveLength(1);
    expect(textOf(replies[0])).toContain('<!subteam^S0ONCALL>');
    expect(textOf(replies[0])).toContain('Drift in prod/network unresolved for 2 h');
    const call = h.emulator.calls('chat.postMessage').find((c) => c.args.thread_ts === alert.ts);
    expect(String(call?.args.reply_broadcast)).toBe('true');
    expect((await h.running.context.store.listAudit({ stack: 'prod/quiet' })).map((a) => a.action)).not.toContain(
      'drift_escalated',
    );
  });
});
