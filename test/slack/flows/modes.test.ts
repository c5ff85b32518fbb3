import { describe, expect, it } from 'vitest';
import { CHANNEL } from '../../helpers/slack-serve.js';
import { useSlackServe } from '../../helpers/use-slack-serve.js';
import { APPROVERS, NETWORK, actionIds, alerts, makeDrift, textOf } from './fixtures.js';

const startServe = useSlackServe();

describe('remediation modes', () => {
  it('auto-apply applies drift without a person, posts it and audits it with the mode as the actor', async () => {
    const h = await startServe({ stacks: { 'dev/network': NETWORK }, stackSettings: { 'dev/network': 'environment: dev\nmode: auto-apply' }, extraConfig: APPROVERS });
    await makeDrift(h, 'dev/network');
    const outcome = await h.running.scheduler.request('dev/network');
    if (outcome.status !== 'drifted') throw new Error(`expected drift, got ${outcome.status}`);
    await h.settle();

    const store = h.running.context.store;
    expect(store.getRun(outcome.run.id)?.state).toBe('applied');
    const audit = store.listAudit({ runId: outcome.run.id });
    expect(audit.find((a) => a.action === 'auto_apply_started')).toMatchObject({ actor: 'driftgate:auto-apply', detail: { reason: 'mode auto-apply' } });
    expect(audit.find((a) => a.action === 'apply_started')?.actor).toBe('driftgate:auto-apply');
    const [alert] = alerts(h, CHANNEL);
    expect(alerts(h, CHANNEL)).toHaveLength(1);
    expect(textOf(h.emulator.message(alert!.channel, alert!.ts))).toContain('verified: no drift');
    expect(actionIds(h.emulator.message(alert!.channel, alert!.ts))).toEqual([]);
    expect(store.getStack('dev/network')?.status).toBe('in_sync');
  });

  it('alert mode never applies by itself', async () => {
    const h = await startServe({ stacks: { 'dev/network': NETWORK }, stackSettings: { 'dev/network': 'environment: dev' }, extraConfig: APPROVERS });
    await makeDrift(h, 'dev/network');
    const outcome = await h.running.scheduler.request('dev/network');
    if (outcome.status !== 'drifted') throw new Error(`expected drift, got ${outcome.status}`);
    await h.settle();
    expect(h.running.context.store.getRun(outcome.run.id)?.state).toBe('drifted');
    expect(h.running.context.store.listAudit({ runId: outcome.run.id }).map((a) => a.action)).not.toContain('apply_started');
  });
});
