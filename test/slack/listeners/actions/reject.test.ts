import { describe, expect, it } from 'vitest';
import { REJECT_MODAL } from '../../../../src/slack/action-ids.js';
import { handleRejectClick } from '../../../../src/slack/listeners/actions/reject.js';
import { GONE, LEAD1, OUTSIDER, STAGING, useListenerWorld } from '../world.js';

const world = useListenerWorld();

describe('handleRejectClick', () => {
  it('opens the reject modal with the click’s trigger id, the run id as private_metadata, and decides nothing yet', async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted');
    await handleRejectClick(w.deps, w.click(run.id, LEAD1, { triggerId: 'trigger-42' }), w.tell);
    const views = w.emulator.views();
    expect(views.map((v) => [v.kind, v.triggerId])).toEqual([['open', 'trigger-42']]);
    expect(views[0]!.view).toMatchObject({ callback_id: REJECT_MODAL.callbackId, private_metadata: run.id });
    expect(JSON.stringify(views[0]!.view)).toContain(STAGING);
    expect(w.told).toEqual([]);
    expect((await w.store.getRun(run.id))?.state).toBe('drifted');
    expect(await w.audit()).toEqual([]);
  });

  it('opens the modal for anyone: who may reject is checked when the modal is submitted', async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted');
    await handleRejectClick(w.deps, w.click(run.id, OUTSIDER), w.tell);
    expect(w.emulator.views()).toHaveLength(1);
    expect(w.told).toEqual([]);
  });

  it.each([
    ['a run that is no longer waiting', 'applied' as const, {}, /This plan has already been applied\./],
    [
      'a click without a trigger id',
      'drifted' as const,
      { triggerId: undefined },
      /without a trigger id, so the reject dialog cannot open/,
    ],
  ])('refuses %s: told why, no modal, nothing audited or changed', async (_case, state, more, told) => {
    const w = await world();
    const run = await w.run(STAGING, state);
    const before = w.snapshot(run.id);
    await handleRejectClick(w.deps, w.click(run.id, LEAD1, more), w.tell);
    expect(w.told).toEqual([expect.stringMatching(told)]);
    expect(w.emulator.views()).toEqual([]);
    expect(w.snapshot(run.id)).toEqual(before);
    expect(await w.audit()).toEqual([]);
  });

  it('tells of an unknown run and of a stack no longer configured, opening nothing', async () => {
    const w = await world();
    const gone = await w.run(GONE, 'drifted');
    await handleRejectClick(w.deps, w.click('r_missing', LEAD1), w.tell);
    await handleRejectClick(w.deps, w.click(gone.id, LEAD1), w.tell);
    expect(w.told).toEqual([
      expect.stringContaining('there is no run r_missing'),
      expect.stringContaining("stack legacy/vpc is no longer in driftgate's config"),
    ]);
    expect(w.emulator.views()).toEqual([]);
    expect((await w.store.getRun(gone.id))?.state).toBe('drifted');
  });
});
