import type { RespondArguments } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { tellClicker, tellInChannel } from '../../../src/slack/listeners/tell.js';
import { CHANNEL, LEAD1, STAGING, useListenerWorld } from './world.js';

const world = useListenerWorld();
const MESSAGE = { text: 'You may not.', blocks: [] };

describe('tellClicker', () => {
  it('answers a message click ephemerally through respond, never replacing the message', async () => {
    const w = await world();
    const said: RespondArguments[] = [];
    await tellClicker(w.deps, { userId: LEAD1, inView: false }, async (args) => {
      said.push(args as RespondArguments);
      return new Response('ok');
    })(MESSAGE);
    expect(said).toEqual([{ response_type: 'ephemeral', replace_original: false, ...MESSAGE }]);
  });

  it('answers a click on the App Home as a notice on the Home tab', async () => {
    const w = await world();
    await tellClicker(w.deps, { userId: LEAD1, inView: true }, undefined)(MESSAGE);
    const [home, ...rest] = w.emulator.views();
    expect(rest).toEqual([]);
    expect(home).toMatchObject({ kind: 'home', userId: LEAD1 });
    expect(JSON.stringify(home!.view)).toContain('You may not.');
  });

  it('logs, and does not throw, when the person cannot be told', async () => {
    const w = await world();
    await w.emulator.down();
    await expect(tellClicker(w.deps, { userId: LEAD1, inView: true }, undefined)(MESSAGE)).resolves.toBeUndefined();
    expect(w.warnings()).toContain('could not answer a Slack user');
  });
});

describe('tellInChannel', () => {
  it("posts an ephemeral message through the outbox: in the channel of the run's message, else the stack's channel", async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted');
    await w.store.setMessage({ runId: run.id, channel: 'C0THREAD', ts: '1.2' });
    await tellInChannel(w.deps, LEAD1, STAGING, run.id)(MESSAGE);
    await tellInChannel(w.deps, LEAD1, STAGING, undefined)(MESSAGE);
    expect(w.outbox()).toEqual([
      {
        key: `stack:${STAGING}`,
        method: 'chat.postEphemeral',
        payload: { channel: 'C0THREAD', user: LEAD1, ...MESSAGE },
      },
      { key: `stack:${STAGING}`, method: 'chat.postEphemeral', payload: { channel: CHANNEL, user: LEAD1, ...MESSAGE } },
    ]);
  });
});
