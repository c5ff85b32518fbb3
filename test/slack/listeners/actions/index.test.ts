import { describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../../../src/slack/action-ids.js';
import { register } from '../../../../src/slack/listeners/actions/index.js';
import { boltWith, CHANNEL, LEAD1, MESSAGE, STAGING, useListenerWorld } from '../world.js';

const world = useListenerWorld();

const click = (actionId: string, value: string, more: Record<string, unknown> = {}) => ({
  type: 'block_actions',
  user: { id: LEAD1, username: 'lead.one' },
  team: { id: 'T111' },
  container: { type: 'message', channel_id: CHANNEL, message_ts: MESSAGE.ts },
  actions: [{ action_id: actionId, value, type: 'button' }],
  ...more,
});

describe('actions register()', () => {
  it('acks before any work, hands the click to the job queue, and answers through the response_url', async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted');
    const bolt = boltWith(w, register);
    await bolt.send(click(ACTION_IDS.approve, run.id, { response_url: w.emulator.responseUrl('approve') }));
    expect(bolt.order).toEqual(['ack', `job ${ACTION_IDS.approve}`]);
    expect(w.recorded.applied).toEqual([{ runId: run.id, state: 'approved', actor: LEAD1 }]);
    const [answer, ...rest] = w.emulator.responses('approve');
    expect(rest).toEqual([]);
    expect(answer!.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(JSON.stringify(answer!.body)).toContain('Approved (1/1): applying staging/network now.');
  });

  it('a click on the App Home is answered on the Home tab, there being no response_url', async () => {
    const w = await world();
    const bolt = boltWith(w, register);
    await bolt.send(click(ACTION_IDS.approve, 'r_missing', { container: { type: 'view', view_id: 'V1' } }));
    expect(w.emulator.views().map((v) => [v.kind, v.userId])).toEqual([['home', LEAD1]]);
    expect(JSON.stringify(w.emulator.views()[0]!.view)).toContain('there is no run r_missing');
  });

  it.each([
    [
      'an empty user id',
      click(ACTION_IDS.approve, 'r_1', { user: { id: '' } }),
      'malformed Slack button payload; ignored',
      'user.id',
    ],
    [
      'an oversized value',
      click(ACTION_IDS.approve, 'x'.repeat(201)),
      'malformed Slack button payload; ignored',
      'actions.0.value',
    ],
    [
      'a driftgate-looking button driftgate never rendered',
      click('driftgate.drop_tables', 'r_1'),
      'click on a button driftgate does not know; ignored',
      'driftgate.drop_tables',
    ],
  ])('acks, logs and ignores %s', async (_case, body, warning, where) => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted');
    const before = w.snapshot(run.id);
    const bolt = boltWith(w, register);
    await bolt.send(body);
    expect(bolt.order).toEqual(['ack']);
    expect(w.warnings()).toContain(warning);
    expect(w.warnings()).toContain(where);
    expect(w.snapshot(run.id)).toEqual(before);
    expect(await w.audit()).toEqual([]);
    // Bolt asks auth.test who it is; driftgate calls nothing.
    expect(w.emulator.calls().filter((c) => c.method !== 'auth.test')).toEqual([]);
  });
});
