import { describe, expect, it } from 'vitest';
import { handleViewPlan } from '../../../../src/slack/listeners/actions/view-plan.js';
import { UPLOAD_METHOD } from '../../../../src/services/outbox/deliver.js';
import { ALL_FIXTURE_SECRETS } from '../../blocks/helpers.js';
import { expectToldPlanSummary, GONE, LEAD1, LEAD2, STAGING, useListenerWorld } from '../world.js';

const world = useListenerWorld();

/** The run's analysis is that of a real terraform plan (test/fixtures/plans/data-changes.json), secrets and all. */
describe('handleViewPlan', () => {
  it("uploads the whole masked plan to the message's thread once, audited; a second click says it is already there", async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted', { analysis: true, message: true });
    await handleViewPlan(w.deps, w.click(run.id, LEAD1), w.tell);
    expect(w.told).toEqual([
      expect.stringContaining(
        `The full plan of ${STAGING} (sensitive values masked) is being posted in the message's thread.`,
      ),
    ]);
    const [upload, ...rest] = w.outbox();
    expect(rest).toEqual([]);
    expect(upload).toMatchObject({
      key: `stack:${STAGING}`,
      method: UPLOAD_METHOD,
      payload: { filename: `plan-staging-network-${run.id}.txt` },
    });
    const content = String(upload!.payload.content);
    expect(content).toContain('terraform_data.web');
    for (const secret of ALL_FIXTURE_SECRETS) expect(content).not.toContain(secret);
    expect(await w.store.listAudit({ runId: run.id })).toMatchObject([{ action: 'plan_file_posted', actor: LEAD1 }]);

    await handleViewPlan(w.deps, w.click(run.id, LEAD2), w.tell);
    expect(w.told[1]).toContain(
      `The full plan of ${STAGING} (sensitive values masked) is already in the message's thread.`,
    );
    expect(w.outbox()).toHaveLength(1);
    expect(await w.audit({ runId: run.id })).toEqual(['plan_file_posted']);
  });

  it('without a message, tells the person a summary of the plan instead, and posts nothing', async () => {
    const w = await world();
    const run = await w.run(STAGING, 'drifted', { analysis: true });
    await handleViewPlan(w.deps, w.click(run.id, LEAD1), w.tell);
    await expectToldPlanSummary(w, STAGING, run.id);
  });

  it('tells of an unknown run and of a stack no longer configured, posting nothing', async () => {
    const w = await world();
    const gone = await w.run(GONE, 'drifted', { analysis: true, message: true });
    await handleViewPlan(w.deps, w.click('r_missing', LEAD1), w.tell);
    await handleViewPlan(w.deps, w.click(gone.id, LEAD1), w.tell);
    expect(w.told).toEqual([
      expect.stringContaining('there is no run r_missing'),
      expect.stringContaining("stack legacy/vpc is no longer in driftgate's config"),
    ]);
    expect(w.outbox()).toEqual([]);
    expect(await w.audit()).toEqual([]);
  });
});
