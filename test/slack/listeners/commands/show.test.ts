import { describe, expect, it } from 'vitest';
import { handleShow } from '../../../../src/slack/listeners/commands/show.js';
import { expectToldPlanSummary, LEAD1, PROD, STAGING, useListenerWorld } from '../world.js';

const world = useListenerWorld();

describe('handleShow', () => {
  it("tells the stack's latest run and what its plan changes, masked; changes nothing", async () => {
    const w = await world();
    await w.run(STAGING, 'no_changes');
    w.app.now.value = new Date(w.app.now.value.getTime() + 60_000);
    const latest = await w.run(STAGING, 'drifted', { analysis: true });
    await handleShow(w.deps, { kind: 'show', stack: STAGING }, LEAD1, w.tell);
    await expectToldPlanSummary(w, STAGING, latest.id);
  });

  it('says a stack was never checked, and nothing for a stack not configured', async () => {
    const w = await world();
    await handleShow(w.deps, { kind: 'show', stack: PROD }, LEAD1, w.tell);
    await handleShow(w.deps, { kind: 'show', stack: 'no/such' }, LEAD1, w.tell);
    expect(w.told).toEqual([expect.stringContaining(`${PROD} has not been checked yet`)]);
  });
});
