import { describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { CHANNEL } from '../helpers/slack-serve.js';
import { slashCommand } from '../helpers/slack-signing.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { APPROVERS, LEAD1, NETWORK } from './fixtures.js';

const startServe = useSlackServe();

describe('Socket Mode', () => {
  it('connects out through apps.connections.open, acks every envelope and answers through the same handlers', async () => {
    const h = await startServe({ stacks: { 'dev/network': NETWORK }, config: APPROVERS, socketMode: true });
    const socket = h.emulator.socket!;
    await socket.connected();
    expect((await fetch(`${h.base}/readyz`)).status).toBe(200);
    expect(h.emulator.calls('apps.connections.open')).toHaveLength(1);
    // No HTTP endpoint for Slack in Socket Mode: nothing to sign, nothing to expose.
    expect((await fetch(`${h.base}/slack/events`, { method: 'POST', body: '{}' })).status).toBe(405);

    const command = {
      ...slashCommand('help', LEAD1, { channel_id: CHANNEL, response_url: h.emulator.responseUrl('sm-help') }),
    };
    const commandAck = await socket.send('slash_commands', command);
    expect(commandAck.envelope_id).toMatch(/^env-/);
    const click = {
      type: 'block_actions',
      user: { id: LEAD1 },
      team: { id: 'T111' },
      response_url: h.emulator.responseUrl('sm-click'),
      container: { type: 'message', channel_id: CHANNEL, message_ts: '1.000001' },
      actions: [{ type: 'button', action_id: ACTION_IDS.viewPlan, value: 'r_missing' }],
    };
    const clickAck = await socket.send('interactive', click);
    expect(clickAck.envelope_id).toMatch(/^env-/);
    await h.settle();
    expect(JSON.stringify(h.emulator.responses('sm-help'))).toContain('driftgate commands');
    expect(JSON.stringify(h.emulator.responses('sm-click'))).toContain('there is no run r_missing');
  });
});
