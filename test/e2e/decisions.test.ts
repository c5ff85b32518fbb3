import { describe, expect, it } from 'vitest';
import type { ConfigPatch } from '../helpers/config-builder.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { CHANNEL, SIGNING_SECRET, type SlackServe } from '../helpers/slack-serve.js';
import { postSigned, slackSignature } from '../helpers/slack-signing.js';
import {
  APPROVERS,
  LEAD1,
  LEAD2,
  LEAD3,
  NETWORK,
  actionIds,
  alerts,
  driftAgain,
  makeDrift,
  textOf,
  untilAlerts,
} from './fixtures.js';

const startServe = useSlackServe();

async function driftedStack(stack: string, config: ConfigPatch = APPROVERS): Promise<{ h: SlackServe; runId: string }> {
  const h = await startServe({
    stacks: { [stack]: NETWORK },
    stackSettings: { [stack]: { environment: stack.split('/')[0] } },
    config,
  });
  await makeDrift(h, stack);
  const outcome = await h.running.scheduler.request(stack);
  if (outcome.status !== 'drifted') throw new Error(`expected drift, got ${outcome.status}`);
  await h.settle();
  return { h, runId: outcome.run.id };
}

describe('decisions from Slack', () => {
  it('applies exactly once when many approvers click at the same moment', async () => {
    const { h, runId } = await driftedStack('staging/network');
    const users = [LEAD1, LEAD2, LEAD3];
    const clicks = await Promise.all(
      Array.from({ length: 12 }, (_, i) => h.click(ACTION_IDS.approve, runId, users[i % 3]!, { id: `race-${i}` })),
    );
    expect(clicks.map((r) => r.status)).toEqual(Array(12).fill(200));
    await h.settle();
    const store = h.running.context.store;
    expect((await store.getRun(runId))?.state).toBe('applied');
    const audit = (await store.listAudit({ runId })).map((a) => a.action);
    expect(audit.filter((a) => a === 'apply_started')).toHaveLength(1);
    expect(audit.filter((a) => a === 'applied')).toHaveLength(1);
    // Every other click was told why nothing happened.
    const told = h.emulator.responses().map((r) => JSON.stringify(r.body));
    expect(told.filter((t) => t.includes('already'))).not.toHaveLength(0);
  });

  it('refuses an unsigned, a wrongly signed and a replayed request with 401, and acts on none', async () => {
    const { h, runId } = await driftedStack('staging/network');
    const events = `${h.base}/slack/events`;
    const payload = JSON.stringify({
      type: 'block_actions',
      user: { id: LEAD1 },
      actions: [{ action_id: ACTION_IDS.approve, value: runId }],
    });
    const body = new URLSearchParams({ payload }).toString();
    const unsigned = await fetch(events, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    const wrong = await postSigned(events, 'not-the-signing-secret', { payload });
    const replayed = await fetch(events, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...slackSignature(SIGNING_SECRET, body, Math.floor(Date.now() / 1000) - 600),
      },
      body,
    });
    expect([unsigned.status, wrong.status, replayed.status]).toEqual([401, 401, 401]);
    await h.settle();
    expect(await h.running.context.store.listApprovals(runId)).toEqual([]);
    expect((await h.running.context.store.listAudit({ runId })).map((a) => a.action)).not.toContain('approved');
  });

  it('refuses a plan older than maxPlanAge, marks it expired and posts a fresh plan', async () => {
    const { h, runId } = await driftedStack('staging/network', { ...APPROVERS, defaults: { maxPlanAge: '1h' } });
    const [first] = alerts(h, CHANNEL);
    h.now.value = new Date(h.now.value.getTime() + 2 * 3600_000);
    await h.click(ACTION_IDS.approve, runId, LEAD1, { id: 'late' });
    // The fresh plan is requested by the refusal; wait for it and its message.
    await untilAlerts(h, 2);
    const store = h.running.context.store;
    expect((await store.getRun(runId))?.state).toBe('expired');
    expect(JSON.stringify(h.emulator.responses('late'))).toMatch(/2h old, older than the 1h/);
    expect(textOf(h.emulator.message(first!.channel, first!.ts))).toContain('Expired');
    expect(actionIds(h.emulator.message(first!.channel, first!.ts))).toEqual([]);
    const fresh = alerts(h, CHANNEL)[1];
    expect(textOf(fresh)).toContain('Drift detected in staging/network');
    expect(actionIds(fresh)).toContain(ACTION_IDS.approve);
    expect((await store.listAudit({ runId })).map((a) => a.action)).not.toContain('apply_started');
  });

  it('refuses to apply a plan whose state moved since it was made, and posts a fresh plan', async () => {
    const { h, runId } = await driftedStack('staging/network');
    const [first] = alerts(h, CHANNEL);
    // Someone changes the stack again after the plan: terraform must refuse the saved plan.
    await driftAgain(h, 'staging/network', 'second-cowboy');
    await h.click(ACTION_IDS.approve, runId, LEAD1, { id: 'stale' });
    await untilAlerts(h, 2);
    const store = h.running.context.store;
    expect((await store.getRun(runId))?.state).toBe('expired');
    const audit = (await store.listAudit({ runId })).map((a) => a.action);
    expect(audit).toContain('apply_refused_stale');
    expect(audit).not.toContain('applied');
    expect(textOf(h.emulator.message(first!.channel, first!.ts))).toContain(
      'the state changed after this plan was made',
    );
    expect(textOf(alerts(h, CHANNEL)[1])).toContain('second-cowboy');
  });

  it('rejects with a reason through the modal, and the same drift stays quiet for the snooze', async () => {
    const { h, runId } = await driftedStack('staging/network');
    const [alert] = alerts(h, CHANNEL);
    await h.click(ACTION_IDS.reject, runId, LEAD1, { id: 'reject' });
    await h.settle();
    const modal = h.emulator.views().find((v) => v.kind === 'open');
    expect(modal?.triggerId).toBe('trigger-reject');
    expect(modal?.view.private_metadata).toBe(runId);

    await h.submitReject(runId, LEAD1, 'intended: codified in PR #42');
    await h.settle();
    const store = h.running.context.store;
    expect((await store.getRun(runId))?.state).toBe('rejected');
    const updated = h.emulator.message(alert!.channel, alert!.ts);
    expect(textOf(updated)).toContain(`Rejected by <@${LEAD1}>: intended: codified in PR #42`);
    expect(actionIds(updated)).toEqual([]);

    // Same drift an hour later: no new alert while snoozed.
    h.now.value = new Date(h.now.value.getTime() + 3600_000);
    const again = await h.running.scheduler.request('staging/network');
    await h.settle();
    expect(alerts(h, CHANNEL)).toHaveLength(1);
    expect((await store.listAudit({ runId: 'run' in again ? again.run?.id : '' })).map((a) => a.action)).toContain(
      'alert_snoozed',
    );

    // After the 24 h snooze it alerts again.
    h.now.value = new Date(h.now.value.getTime() + 24 * 3600_000);
    await h.running.scheduler.request('staging/network');
    await h.settle();
    expect(alerts(h, CHANNEL)).toHaveLength(2);
  });
});
