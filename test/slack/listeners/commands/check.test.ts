import { describe, expect, it } from 'vitest';
import { formatCounts } from '../../../../src/domain/plan/render-text.js';
import type { CheckOutcome } from '../../../../src/services/check/check-stack.js';
import { handleCheck } from '../../../../src/slack/listeners/commands/check.js';
import { fixtureAnalysis } from '../../blocks/helpers.js';
import { LEAD1, PROD, STAGING, UNRULED, useListenerWorld } from '../world.js';

const world = useListenerWorld();

describe('handleCheck', () => {
  it('audits and queues every stack as a manual check, says so first, then one line per outcome', async () => {
    const w = await world();
    const drifted = await w.run(STAGING, 'drifted');
    const analysis = fixtureAnalysis('data-changes.json');
    const outcomes: Record<string, CheckOutcome> = {
      [STAGING]: { stack: STAGING, status: 'drifted', run: drifted, analysis, isNew: true },
      [PROD]: { stack: PROD, status: 'blocked', reason: 'apply interrupted' },
    };
    let answered = 0;
    w.scheduler.answer = async (stack) => {
      await new Promise((r) => setImmediate(r));
      // The "queued" answer is told before any check has finished.
      expect(w.told).toHaveLength(1);
      answered++;
      if (stack === UNRULED) throw new Error('terraform init failed');
      return outcomes[stack]!;
    };
    await handleCheck(w.deps, { kind: 'check', stacks: [STAGING, PROD, UNRULED] }, LEAD1, w.tell);
    expect(answered).toBe(3);
    expect(w.recorded.scheduled).toEqual([STAGING, PROD, UNRULED].map((stack) => ({ stack, trigger: 'manual' })));
    expect(w.told[0]).toContain(`Queued 3 stacks: ${STAGING}, ${PROD}, ${UNRULED}. Alerts go to each stack's channel.`);
    // told is JSON text: the summary's newlines are escaped.
    expect(w.told[1]).toContain(`Check finished:\\n${STAGING}: drifted (${formatCounts(analysis.counts)})\\n`);
    expect(w.told[1]).toContain(`${PROD}: blocked: apply interrupted`);
    // No rule lets LEAD1 approve it and LEAD1 is not in its channel: checked, its result not told here.
    expect(w.told[1]).toContain(`${UNRULED}: checked; its result went to its alert channel`);
    expect(w.told).toHaveLength(2);
    expect(await w.store.listAudit({})).toMatchObject(
      [STAGING, PROD, UNRULED].map((stack) => ({ action: 'check_requested', actor: LEAD1, stack })),
    );
  });

  it('with no stacks configured, says there is nothing to check and queues nothing', async () => {
    const w = await world();
    await handleCheck(w.deps, { kind: 'check', stacks: [] }, LEAD1, w.tell);
    expect(w.told).toEqual([expect.stringContaining('No stacks are configured, so there is nothing to check.')]);
    expect(w.recorded.scheduled).toEqual([]);
    expect(await w.audit()).toEqual([]);
  });
});
