import { describe, expect, it } from 'vitest';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { CHANNEL } from '../helpers/slack-serve.js';
import { APPROVERS, LEAD1, NETWORK, actionIds, alerts, textOf } from './fixtures.js';

const startServe = useSlackServe();

describe('a stack with no state where driftgate looks (never applied, or the wrong backend or workspace)', () => {
  it('is one message saying so, without an Approve button, not repeated, and /drift status says why', async () => {
    const h = await startServe({
      stacks: { 'prod/network': NETWORK },
      stackSettings: { 'prod/network': { environment: 'prod', emptyState: 'report' } },
      config: {
        ...APPROVERS,
        slack: { digestWindow: '0s', onCall: { usergroup: 'S0ONCALL', environments: ['prod'] } },
      },
    });
    const first = await h.running.scheduler.request('prod/network');
    expect(first).toMatchObject({ status: 'errored', finding: 'no_state' });
    await h.running.scheduler.request('prod/network');
    await h.settle();

    const posted = alerts(h, CHANNEL);
    expect(posted).toHaveLength(1);
    expect(textOf(posted[0])).toContain('no state found for prod/network in its backend (workspace default)');
    expect(textOf(posted[0])).not.toContain('Drift detected');
    expect(textOf(posted[0])).not.toContain('<!subteam^S0ONCALL>');
    expect(actionIds(posted[0])).toEqual([]);

    await h.command('status', LEAD1, 'status');
    for (let i = 0; i < 200 && h.emulator.responses('status').length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(JSON.stringify(h.emulator.responses('status'))).toContain('no state found for prod/network');
  });
});
