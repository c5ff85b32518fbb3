import { describe, expect, it } from 'vitest';
import { mergeConfig } from '../helpers/config-builder.js';
import { CHANNEL } from '../helpers/slack-serve.js';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { ask } from './commands/helpers.js';
import { APPROVERS, LEAD1, NETWORK, alerts, makeDrift, textOf } from './fixtures.js';

const startServe = useSlackServe();
const STACK = 'dev/network';

describe('a perpetual diff', () => {
  it('is named once in the thread of its alert after K checks of the same plan, and in /drift status', async () => {
    const h = await startServe({
      stacks: { [STACK]: NETWORK },
      stackSettings: { [STACK]: { environment: 'dev' } },
      config: mergeConfig(APPROVERS, { defaults: { notConvergingAfter: 3 } }),
    });
    await makeDrift(h, STACK);
    const outcomes = [];
    for (let i = 0; i < 5; i++) {
      outcomes.push(await h.running.scheduler.request(STACK));
      await h.settle();
    }
    const [alert] = alerts(h, CHANNEL);
    expect(alerts(h, CHANNEL)).toHaveLength(1);
    const named = h.emulator
      .messages(CHANNEL)
      .filter((m) => m.threadTs === alert!.ts && textOf(m).includes('is not converging'));
    expect(named).toHaveLength(1);
    expect(textOf(named[0])).toContain('for 3 checks in a row');
    expect(textOf(named[0])).toContain('`ignore` rule');
    expect(outcomes.map((o) => ('notConverging' in o ? o.notConverging : undefined))).toEqual([
      undefined,
      undefined,
      3,
      4,
      5,
    ]);
    const [status] = (await ask(h, 'status', LEAD1)).answers;
    expect(status).toContain('not converging (the same plan for 5 checks)');
  });
});
