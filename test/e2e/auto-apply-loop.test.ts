import { describe, expect, it } from 'vitest';
import { useSlackServe } from '../helpers/use-slack-serve.js';
import { APPROVERS, NETWORK, driftAgain, makeDrift } from './fixtures.js';

const startServe = useSlackServe();

describe('auto-apply does not loop', () => {
  it('asks a person when the same changes it applied automatically come back', async () => {
    const h = await startServe({
      stacks: { 'dev/network': NETWORK },
      stackSettings: { 'dev/network': { environment: 'dev', mode: 'auto-apply' } },
      config: APPROVERS,
    });
    await makeDrift(h, 'dev/network', 'reverted-by-a-cron-job');
    const first = await h.running.scheduler.request('dev/network');
    if (first.status !== 'drifted') throw new Error(`expected drift, got ${first.status}`);
    await h.settle();
    const store = h.running.context.store;
    expect((await store.getRun(first.run.id))?.state).toBe('applied');

    // Something puts the same change back: same fingerprint.
    await driftAgain(h, 'dev/network', 'reverted-by-a-cron-job');
    const again = await h.running.scheduler.request('dev/network');
    if (again.status !== 'drifted') throw new Error(`expected drift, got ${again.status}`);
    await h.settle();
    expect(again.run.fingerprint).toBe(first.run.fingerprint);
    expect((await store.getRun(again.run.id))?.state).toBe('drifted');
    expect(
      (await store.listAudit({ runId: again.run.id })).find((a) => a.action === 'auto_apply_declined')?.detail?.reason,
    ).toContain(`applied automatically in run ${first.run.id} and came back`);
  });
});
