import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '../../../src/domain/run/model.js';
import { holdAlert, recordNotice } from '../../../src/services/notify/alerts.js';
import { dueEscalations, recordEscalation } from '../../../src/services/notify/escalation.js';
import { planFailureToReport } from '../../../src/services/notify/run-notices.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { fixtureAnalysis } from '../../slack/blocks/helpers.js';

/**
 * Whether to tell, decided without Slack: the alert decisions, plan-failure de-duplication and escalation
 * over a real SQLite store, each leaving the audit line the notifier used to write itself.
 */
const OPEN = 'open/app';
const QUIET = 'quiet/app';
const SNOOZED = 'snoozed/app';
const FAILING = 'failing/app';
const HOUR = 3_600_000;

let app: TestApp;
const deps = () => ({ store: app.context.store, now: app.context.deps.now, stack: app.context.stack });
const analysis = fixtureAnalysis('data-changes.json');

async function runIn(stack: string, to: 'drifted' | 'errored' | 'planning', fingerprint = `fp-${stack}`): Promise<Run> {
  const { store } = app.context;
  await store.upsertStack(stack);
  const run = await store.createRun({ stack, trigger: 'schedule' });
  if (to === 'planning') return run;
  const patch =
    to === 'drifted'
      ? { kind: 'drift' as const, fingerprint, counts: analysis.counts, planSha256: 'a'.repeat(64) }
      : {};
  const moved = await store.transition(run.id, 'planning', to, patch);
  if (!moved) throw new Error(`test setup: planning -> ${to} refused`);
  return moved;
}
const actions = async (runId: string) => (await app.context.store.listAudit({ runId })).map((a) => a.action);

beforeAll(async () => {
  app = await makeTestApp({
    stacks: { [OPEN]: undefined, [QUIET]: undefined, [SNOOZED]: undefined, [FAILING]: undefined },
  });
});
afterAll(() => app.close());

describe('holdAlert', () => {
  it("holds new drift for its channel's digest window, once: the same announcement replayed is not held again", async () => {
    const run = await runIn(OPEN, 'drifted');
    const hold = { channel: () => 'C0ALERTS', windowMs: 60_000 };
    expect(await holdAlert(deps(), run, { analysis }, hold)).toBe(true);
    expect(await holdAlert(deps(), run, { analysis }, hold)).toBe(false);
    const audit = await app.context.store.listAudit({ runId: run.id });
    expect(audit).toMatchObject([
      {
        action: 'alert_held',
        actor: 'system',
        detail: { channel: 'C0ALERTS', until: new Date(app.now.value.getTime() + 60_000).toISOString() },
      },
    ]);
  });

  it('does not alert a silenced stack nor a rejected (snoozed) drift, and audits why', async () => {
    const { store } = app.context;
    const until = new Date(app.now.value.getTime() + HOUR);
    await store.silence({ stack: QUIET, until, by: 'U0LEAD0001' });
    await store.snooze(SNOOZED, 'fp-snoozed', until);
    let asked = 0;
    const hold = { channel: () => String(++asked), windowMs: 0 };
    const silenced = await runIn(QUIET, 'drifted');
    const snoozed = await runIn(SNOOZED, 'drifted', 'fp-snoozed');
    expect(await holdAlert(deps(), silenced, { analysis }, hold)).toBe(false);
    expect(await holdAlert(deps(), snoozed, { analysis }, hold)).toBe(false);
    expect(await actions(silenced.id)).toEqual(['alert_silenced']);
    expect(await actions(snoozed.id)).toEqual(['alert_snoozed']);
    expect(asked).toBe(0);
  });
});

describe('planFailureToReport', () => {
  it('reports a failure once while the stack fails the same way, and again when it fails differently', async () => {
    const failure = { error: 'terraform plan failed', stderrTail: 'Error: provider unreachable' };
    const first = await runIn(FAILING, 'errored');
    const signature = await planFailureToReport(deps(), first, failure);
    expect(signature).toMatch(/^[0-9a-f]{16}$/);
    await recordNotice(deps(), first, 'plan_failure_posted', { signature });

    const again = await runIn(FAILING, 'errored');
    expect(await planFailureToReport(deps(), again, failure)).toBeUndefined();
    expect(await actions(again.id)).toEqual(['plan_failure_repeated']);

    const other = await runIn(FAILING, 'planning');
    const different = await planFailureToReport(deps(), other, { ...failure, stderrTail: 'Error: quota exceeded' });
    expect(different).toMatch(/^[0-9a-f]{16}$/);
    expect(different).not.toBe(signature);
    expect(await actions(other.id)).toEqual([]);
  });
});

describe('dueEscalations', () => {
  it('raises open drift past the wait once, only on stacks with an on-call, never on a silenced stack', async () => {
    const { store } = app.context;
    const open = await runIn(OPEN, 'drifted', 'fp-escalate');
    const quiet = await runIn(QUIET, 'drifted', 'fp-quiet');
    const nobody = await runIn(FAILING, 'drifted', 'fp-nobody');
    for (const run of [open, quiet, nobody])
      await store.openDrift(run.stack, { fingerprint: run.fingerprint!, runId: run.id, counts: analysis.counts });
    const mentionOf = (stack: { name: string }) => (stack.name === FAILING ? undefined : 'S0ONCALL');
    expect(await dueEscalations(deps(), 2 * HOUR, mentionOf)).toEqual([]);

    app.now.value = new Date(app.now.value.getTime() + 3 * HOUR);
    await store.silence({ stack: QUIET, until: new Date(app.now.value.getTime() + HOUR), by: 'U0LEAD0001' });
    const due = await dueEscalations(deps(), 2 * HOUR, mentionOf);
    expect(due.map((d) => [d.stack.name, d.run.id, d.mention])).toEqual([[OPEN, open.id, 'S0ONCALL']]);
    await recordEscalation(deps(), due[0]!);
    expect(await app.context.store.listAudit({ runId: open.id })).toMatchObject([
      { action: 'drift_escalated', actor: 'system', detail: { fingerprint: 'fp-escalate', ageMs: 3 * HOUR } },
    ]);
    expect(await dueEscalations(deps(), 2 * HOUR, mentionOf)).toEqual([]);
  });
});
