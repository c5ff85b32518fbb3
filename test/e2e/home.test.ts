import { describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { APPROVERS, LEAD1, NETWORK, OUTSIDER, makeDrift } from './fixtures.js';

const startServe = useSlackServe();
const STACK = 'staging/network';

describe('App Home', () => {
  it('lists a pending approval with its buttons, and answers clicks made there on the Home tab itself', async () => {
    const h = await startServe({
      stacks: { [STACK]: NETWORK },
      stackSettings: { [STACK]: { environment: 'staging' } },
      config: APPROVERS,
    });
    await makeDrift(h, STACK);
    const outcome = await h.running.scheduler.request(STACK);
    if (outcome.status !== 'drifted') throw new Error(`expected drift, got ${outcome.status}`);
    await h.settle();

    await h.click(ACTION_IDS.refreshHome, 'home', LEAD1, { inHome: true });
    await h.settle();
    const home = JSON.stringify(h.emulator.views().at(-1)?.view.blocks);
    expect(home).toContain('Waiting for approval (1)');
    expect(home).toContain(`"value":"${outcome.run.id}"`);
    expect(home).toContain(ACTION_IDS.approve);

    // A Home tab click has no channel and no response_url: the answer is shown on the tab.
    await h.click(ACTION_IDS.approve, outcome.run.id, OUTSIDER, { inHome: true });
    await h.settle();
    const refused = h.emulator.views().at(-1)!;
    expect(refused.userId).toBe(OUTSIDER);
    expect(JSON.stringify(refused.view.blocks)).toContain('sre-leads');
    expect((await h.running.context.store.getRun(outcome.run.id))?.state).toBe('drifted');

    await h.click(ACTION_IDS.approve, outcome.run.id, LEAD1, { inHome: true });
    await h.settle();
    expect((await h.running.context.store.getRun(outcome.run.id))?.state).toBe('applied');
    const after = JSON.stringify(
      h.emulator
        .views()
        .filter((v) => v.userId === LEAD1)
        .at(-1)?.view.blocks,
    );
    expect(after).toContain(`applying ${STACK} now`);
    expect(after).toContain('Waiting for approval (0)');
  });
});
