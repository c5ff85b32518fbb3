import { describe, expect, it } from 'vitest';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { SIGNING_SECRET } from '../helpers/slack-serve.js';
import { postSigned } from '../helpers/slack-signing.js';
import { APPROVERS, LEAD1, NETWORK } from './fixtures.js';

const startServe = useSlackServe();

describe('malformed Slack payloads', () => {
  it('acks, logs what was wrong and where, changes nothing, and keeps serving', async () => {
    const h = await startServe({ stacks: { 'dev/network': NETWORK }, config: APPROVERS });
    const events = `${h.base}/slack/events`;
    const send = (payload: unknown) => postSigned(events, SIGNING_SECRET, { payload: JSON.stringify(payload) });
    const statuses = [
      // No user or team: Bolt itself cannot route it and answers 500; nothing reaches driftgate.
      (await send({ type: 'block_actions', actions: [{ action_id: ACTION_IDS.approve }] })).status,
      // No container, no response_url, and a user id that is empty.
      (
        await send({
          type: 'block_actions',
          user: { id: '' },
          team: { id: 'T1' },
          actions: [{ action_id: ACTION_IDS.approve, value: 'r_1' }],
        })
      ).status,
      (
        await send({
          type: 'block_actions',
          user: { id: LEAD1 },
          actions: [{ action_id: ACTION_IDS.approve, value: 'x'.repeat(5000) }],
        })
      ).status,
      // A driftgate-looking button driftgate never rendered.
      (
        await send({
          type: 'block_actions',
          user: { id: LEAD1 },
          actions: [{ action_id: 'driftgate.drop_tables', value: 'r_1' }],
        })
      ).status,
      // A reject submission without the run id.
      (
        await send({
          type: 'view_submission',
          user: { id: LEAD1 },
          view: { callback_id: 'driftgate.reject_modal', state: { values: {} } },
        })
      ).status,
    ];
    expect(statuses).toEqual([500, 200, 200, 200, 200]);
    await h.settle();
    const warnings = h.logs.filter((l) => l.includes('"level":40')).join('\n');
    expect(warnings).toContain('malformed Slack button payload');
    expect(warnings).toContain('user.id: Too small');
    expect(warnings).toContain('actions.0.value');
    expect(warnings).toContain('driftgate.drop_tables');
    expect(warnings).toContain('malformed reject submission');
    expect(await h.running.context.store.listAudit({})).toEqual([]);
    expect(h.emulator.calls().filter((c) => c.method !== 'auth.test')).toEqual([]);

    // Still serving: a real click on a run that does not exist is answered.
    await h.click(ACTION_IDS.approve, 'r_missing', LEAD1, { id: 'after' });
    await h.settle();
    expect(JSON.stringify(h.emulator.responses('after'))).toContain('there is no run r_missing');
  });
});
