import { describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { CHANNEL } from '../helpers/slack-serve.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { APPROVERS, LEAD1, LEAD2, NETWORK, OUTSIDER, alerts, driftAgain, makeDrift, textOf } from './fixtures.js';

const startServe = useSlackServe();
const STACK = 'prod/network';

/** prod needs two approvers (fixtures.APPROVERS); the drift is alerted and LEAD1 has approved. */
async function halfApproved() {
  const h = await startServe({
    stacks: { [STACK]: NETWORK },
    stackSettings: { [STACK]: { environment: 'prod' } },
    config: APPROVERS,
  });
  await makeDrift(h, STACK);
  const first = await h.running.scheduler.request(STACK);
  if (first.status !== 'drifted') throw new Error(`expected drift, got ${first.status}`);
  await h.settle();
  await h.click(ACTION_IDS.approve, first.run.id, LEAD1);
  await h.settle();
  return { h, first: first.run };
}

describe('a re-plan keeps a decision in progress', () => {
  it('carries approvals to a re-plan of the same changes, so anyone typing /drift check cannot stall a two-person rule', async () => {
    const { h, first } = await halfApproved();
    const store = h.running.context.store;

    await h.command(`check ${STACK}`, OUTSIDER);
    await h.idle();
    const [second] = await store.listRuns({ stack: STACK, limit: 1 });
    expect(second!.id).not.toBe(first.id);
    expect((await store.getRun(first.id))?.state).toBe('superseded');
    expect((await store.listApprovals(second!.id)).map((a) => a.userId)).toEqual([LEAD1]);
    expect((await store.listAudit({ runId: second!.id })).find((a) => a.action === 'approvals_carried')).toMatchObject({
      detail: { from: first.id, users: [LEAD1] },
    });
    // One alert, updated in place: it points at the new plan and still shows the approval it had.
    const [alert] = alerts(h, CHANNEL);
    expect(alerts(h, CHANNEL)).toHaveLength(1);
    expect(textOf(alert)).toContain(`Approved by <@${LEAD1}> (1/2)`);
    expect(JSON.stringify(alert!.blocks)).toContain(second!.id);

    // The second approver completes it: the carried approval counts.
    await h.click(ACTION_IDS.approve, second!.id, LEAD2);
    await h.idle();
    expect((await store.getRun(second!.id))?.state).toBe('applied');
  });

  it('starts over when the changes differ', async () => {
    const { h, first } = await halfApproved();
    const store = h.running.context.store;
    await driftAgain(h, STACK, 'someone-else');
    await h.command(`check ${STACK}`, OUTSIDER);
    await h.idle();
    const [second] = await store.listRuns({ stack: STACK, limit: 1 });
    expect(second!.fingerprint).not.toBe(first.fingerprint);
    expect(await store.listApprovals(second!.id)).toEqual([]);
    expect((await store.listAudit({ runId: second!.id })).map((a) => a.action)).not.toContain('approvals_carried');
  });

  it('never supersedes an approved run waiting for its apply', async () => {
    const { h, first } = await halfApproved();
    const store = h.running.context.store;
    // As a restart finds it: the approvals complete, the apply not started yet.
    await store.transition(first.id, ['drifted'], 'approved');
    await h.running.scheduler.request(STACK);
    await h.settle();
    expect((await store.getRun(first.id))?.state).toBe('approved');
    expect(await store.listRuns({ stack: STACK, states: ['superseded'] })).toEqual([]);
  });
});
