import { describe, expect, it } from 'vitest';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { CHANNEL } from '../helpers/slack-serve.js';
import { APPROVERS, LEAD1, LEAD2, NETWORK, OUTSIDER, actionIds, alerts, makeDrift, textOf } from './fixtures.js';

const startServe = useSlackServe();

describe('drift -> Slack alert -> approvals -> apply, through the real Bolt receiver', () => {
  it('refuses an outsider, counts two leads, applies once, and updates the message to applied and verified', async () => {
    const h = await startServe({
      stacks: { 'prod/network': NETWORK },
      stackSettings: { 'prod/network': { environment: 'prod' } },
      config: {
        ...APPROVERS,
        slack: { digestWindow: '0s', onCall: { usergroup: 'S0ONCALL', environments: ['prod'] } },
      },
    });
    await makeDrift(h, 'prod/network');
    const outcome = await h.running.scheduler.request('prod/network');
    expect(outcome.status).toBe('drifted');
    const runId = outcome.status === 'drifted' ? outcome.run.id : '';
    await h.settle();

    const [alert] = alerts(h, CHANNEL);
    expect(alerts(h, CHANNEL)).toHaveLength(1);
    expect(textOf(alert)).toContain('Drift detected in prod/network');
    expect(textOf(alert)).toContain('console-cowboy');
    expect(actionIds(alert)).toEqual([ACTION_IDS.approve, ACTION_IDS.reject, ACTION_IDS.viewPlan]);
    expect(textOf(alert)).toContain('Waiting for 2 approvals from sre-leads');
    // prod pages the on-call group in the alert.
    expect(textOf(alert)).toContain('<!subteam^S0ONCALL>');

    // Someone outside sre-leads: told why, audited, nothing changes.
    const refused = await h.click(ACTION_IDS.approve, runId, OUTSIDER, { id: 'outsider' });
    expect(refused.status).toBe(200);
    await h.settle();
    expect(textOf({ text: JSON.stringify(h.emulator.responses('outsider')) })).toContain('sre-leads');
    expect((await h.running.context.store.getRun(runId))?.state).toBe('drifted');
    expect((await h.running.context.store.listAudit({ runId })).map((a) => `${a.actor}:${a.action}`)).toContain(
      `${OUTSIDER}:approve_refused`,
    );

    await h.click(ACTION_IDS.approve, runId, LEAD1, { id: 'lead1' });
    await h.settle();
    const afterFirst = h.emulator.message(alert!.channel, alert!.ts);
    expect(textOf(afterFirst)).toContain(`Approved by <@${LEAD1}> (1/2)`);
    expect(actionIds(afterFirst)).toContain(ACTION_IDS.approve);
    expect((await h.running.context.store.getRun(runId))?.state).toBe('drifted');

    await h.click(ACTION_IDS.approve, runId, LEAD2, { id: 'lead2' });
    await h.settle();
    expect((await h.running.context.store.getRun(runId))?.state).toBe('applied');
    const done = h.emulator.message(alert!.channel, alert!.ts);
    expect(textOf(done)).toMatch(/Applied in \d+ s, verified: no drift/);
    expect(actionIds(done)).toEqual([]);
    expect(textOf(done)).not.toContain('<!subteam^S0ONCALL>');
    const thread = h.emulator.messages(CHANNEL).filter((m) => m.threadTs === alert!.ts);
    expect(textOf(thread[0])).toContain('Apply succeeded');
    expect(textOf(thread[0])).toContain('Apply complete!');

    const audit = (await h.running.context.store.listAudit({ runId })).map((a) => a.action);
    expect(audit.filter((a) => a === 'apply_started')).toHaveLength(1);
    expect(audit).toContain('applied');
    // The verification plan is clean and the stack is in sync.
    expect((await h.running.context.store.getStack('prod/network'))?.status).toBe('in_sync');
  });
});
