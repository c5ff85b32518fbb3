import { afterEach, describe, expect, it } from 'vitest';
import { editResourceInput } from '../../../src/cli/commands/demo-drift.js';
import { ExternalServiceError } from '../../../src/domain/errors.js';
import type { Run } from '../../../src/domain/run/model.js';
import type { SlackStore } from '../../../src/ports/slack-store.js';
import type { RunStore } from '../../../src/ports/store.js';
import type { ApprovalServiceDeps } from '../../../src/services/approval/approval-deps.js';
import { applySavedPlan } from '../../../src/services/apply/apply-saved-plan.js';
import { approveRun } from '../../../src/services/approval/approve-run.js';
import { checkStack } from '../../../src/services/check/check-stack.js';
import { rejectRun } from '../../../src/services/approval/reject-run.js';
import { createLogger } from '../../../src/logging/logger.js';
import { createSlackApi } from '../../../src/adapters/slack/api.js';
import { createUsergroupResolver, type SlackCall } from '../../../src/adapters/slack/usergroups.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { approvers } from '../../helpers/config-builder.js';
import { startSlackEmulator, type SlackEmulator } from '../../helpers/slack-emulator.js';

const NETWORK = `
resource "terraform_data" "vpc" {
  input = { cidr = "10.0.0.0/16", tags = { Name = "main", Team = "core" } }
}
`;

const LEAD1 = 'U0LEAD1';
const LEAD2 = 'U0LEAD2';
const LEAD3 = 'U0LEAD3';
const AUTHOR = 'U0AUTHOR';
const OUTSIDER = 'U0OUTSIDER';
const ONCALL = 'U0ONCALL';

const APPROVERS = approvers(
  { 'sre-leads': [LEAD1, LEAD2, LEAD3, AUTHOR], oncall: { usergroups: ['@oncall'] } },
  [
    { stacks: 'prod/*', count: 2, from: ['sre-leads'] },
    { environments: ['staging'], from: ['oncall'] },
  ],
  { authors: { octocat: AUTHOR } },
);

let app: TestApp | undefined;
let emulator: SlackEmulator | undefined;
afterEach(async () => {
  await app?.close();
  await emulator?.close();
  app = undefined;
  emulator = undefined;
});

/** Groups listed by user id need no Slack call: a resolver that would call Slack here is a bug. */
const noSlack: SlackCall = async (method) => {
  throw new Error(`unexpected Slack call ${method}`);
};

async function setup(options: { stacks: Record<string, string>; call?: SlackCall; author?: string }) {
  const checksRequested: string[] = [];
  app = await makeTestApp({
    stacks: options.stacks,
    config: { defaults: { maxPlanAge: '1h', snooze: '24h' }, ...APPROVERS },
    stackSettings: Object.fromEntries(Object.keys(options.stacks).map((n) => [n, { environment: n.split('/')[0] }])),
  });
  const { context } = app;
  const store = context.store as RunStore & SlackStore;
  const deps: ApprovalServiceDeps = {
    ...context.deps,
    store,
    usergroups: createUsergroupResolver({ call: options.call ?? noSlack, ttlMs: 60_000, now: context.deps.now }),
    approvers: context.config.approvers,
    snoozeMs: context.config.defaults.snooze,
    authorOf: async () => options.author,
    requestCheck: (stack) => checksRequested.push(stack),
  };
  return { app, deps, store, checksRequested };
}

/**
 * One stack and a run of it waiting for a decision, recorded as check-stack records one, for the cases
 * that need no plan.
 */
async function setupWaiting(stackName: string, options: { call?: SlackCall; author?: string } = {}) {
  const { app, deps, store, checksRequested } = await setup({ stacks: { [stackName]: NETWORK }, ...options });
  const created = await store.createRun({ stack: stackName, trigger: 'schedule' });
  const run: Run = (await store.transition(created.id, 'planning', 'drifted', {
    kind: 'drift',
    fingerprint: 'f'.repeat(64),
    planSha256: 'a'.repeat(64),
  }))!;
  return { app, deps, store, checksRequested, run, stack: app.context.stack(stackName)! };
}

const actions = async (store: RunStore, runId: string) =>
  (await store.listAudit({ runId })).map((a) => `${a.actor}:${a.action}`).sort();

describe('approve and reject with real terraform and a real SQLite file', () => {
  it('takes two distinct approvers who are not the author, then applies the reviewed plan once', async () => {
    const { app, deps, store } = await setup({ stacks: { 'prod/network': NETWORK }, author: 'octocat' });
    const stack = app.context.stack('prod/network')!;
    await app.applyWithTerraform('prod/network');
    await editResourceInput(
      { binary: 'terraform', env: app.env },
      stack.dir,
      { type: 'terraform_data', name: 'vpc' },
      (input) => {
        (input.tags as Record<string, string>).Team = 'console-cowboy';
      },
    );
    const drift = await checkStack(deps, stack, { trigger: 'schedule' });
    if (drift.status !== 'drifted') throw new Error(`expected drift, got ${drift.status}`);
    const runId = drift.run.id;

    const outsider = await approveRun(deps, stack, runId, OUTSIDER);
    expect(outsider).toMatchObject({
      status: 'refused',
      reason: 'not_in_group',
      message: expect.stringContaining('sre-leads'),
    });
    expect((await store.getRun(runId))?.state).toBe('drifted');
    expect(await store.listApprovals(runId)).toEqual([]);
    expect((await store.listAudit({ runId })).find((a) => a.action === 'approve_refused')).toMatchObject({
      actor: OUTSIDER,
      planSha256: drift.run.planSha256,
      detail: { reason: 'not_in_group' },
    });

    expect(await approveRun(deps, stack, runId, LEAD1)).toMatchObject({
      status: 'recorded',
      progress: { have: 1, need: 2, approvers: [LEAD1] },
    });
    expect(await approveRun(deps, stack, runId, LEAD1)).toMatchObject({
      status: 'refused',
      reason: 'already_approved',
    });
    expect(await approveRun(deps, stack, runId, AUTHOR)).toMatchObject({ status: 'refused', reason: 'author' });
    expect((await store.listApprovals(runId)).map((a) => a.userId)).toEqual([LEAD1]);
    expect((await store.getRun(runId))?.state).toBe('drifted');

    const complete = await approveRun(deps, stack, runId, LEAD2);
    expect(complete).toMatchObject({
      status: 'complete',
      run: { state: 'approved' },
      progress: { have: 2, need: 2, approvers: [LEAD1, LEAD2] },
    });
    // Approving an approved run changes nothing.
    expect(await approveRun(deps, stack, runId, LEAD3)).toMatchObject({ status: 'refused', reason: 'not_awaiting' });

    const applied = await applySavedPlan(deps, stack, runId, LEAD2);
    expect(applied).toMatchObject({
      status: 'applied',
      run: { state: 'applied' },
      verification: { status: 'no_changes', resolved: true },
    });
    expect(await actions(store, runId)).toEqual(
      [
        `${OUTSIDER}:approve_refused`,
        `${LEAD1}:approved`,
        `${LEAD1}:approve_refused`,
        `${AUTHOR}:approve_refused`,
        `${LEAD2}:approved`,
        `${LEAD3}:approve_refused`,
        `${LEAD2}:apply_started`,
        `${LEAD2}:applied`,
      ].sort(),
    );
    for (const entry of (await store.listAudit({ runId })).filter((a) => a.action === 'approved')) {
      expect(entry.planSha256).toBe(drift.run.planSha256);
    }
  });

  it('lets exactly one of two concurrent completing approvals win, and applies once', async () => {
    const { app, deps, store } = await setup({ stacks: { 'prod/network': NETWORK } });
    const stack = app.context.stack('prod/network')!;
    // Never applied: the plan wants to create everything.
    const planned = await checkStack(deps, stack, { trigger: 'manual' });
    if (planned.status !== 'drifted' && planned.status !== 'pending_approval')
      throw new Error(`expected changes, got ${planned.status}`);
    const runId = planned.run.id;
    expect(await approveRun(deps, stack, runId, LEAD1)).toMatchObject({ status: 'recorded' });

    const racing = await Promise.all([approveRun(deps, stack, runId, LEAD2), approveRun(deps, stack, runId, LEAD3)]);
    const winners = racing.filter((o) => o.status === 'complete');
    expect(winners).toHaveLength(1);
    expect(racing.filter((o) => o.status === 'refused')).toMatchObject([
      { reason: 'not_awaiting', message: expect.stringMatching(/already been approved/) },
    ]);
    expect((await store.getRun(runId))?.state).toBe('approved');

    // The Slack layer applies on `complete`; even if both callers tried, one apply runs.
    const applies = await Promise.all(
      racing.map((o) => applySavedPlan(deps, stack, runId, o.status === 'complete' ? 'winner' : 'loser')),
    );
    expect(applies.filter((a) => a.status === 'applied')).toHaveLength(1);
    expect((await store.listAudit({ runId })).filter((a) => a.action === 'apply_started')).toHaveLength(1);
    expect((await store.listAudit({ runId })).filter((a) => a.action === 'approved')).toHaveLength(2);
  });
});

describe('approve and reject without a plan run', () => {
  it('rejects: the run ends, its fingerprint is snoozed for defaults.snooze, and the author may reject', async () => {
    const { app, deps, store, stack, run } = await setupWaiting('prod/db', { author: 'octocat' });

    expect(await rejectRun(deps, stack, run.id, OUTSIDER, 'nope')).toMatchObject({
      status: 'refused',
      reason: 'not_in_group',
    });
    expect((await store.getRun(run.id))?.state).toBe('drifted');
    expect(await store.isSnoozed('prod/db', run.fingerprint!, app.now.value)).toBe(false);

    const rejected = await rejectRun(deps, stack, run.id, AUTHOR, '  intended: the console change stays  ');
    const until = new Date(app.now.value.getTime() + 24 * 3_600_000);
    expect(rejected).toMatchObject({
      status: 'rejected',
      run: { state: 'rejected' },
      reason: 'intended: the console change stays',
      snoozedUntil: until,
    });
    expect(await store.isSnoozed('prod/db', run.fingerprint!, new Date(until.getTime() - 1000))).toBe(true);
    expect(await store.isSnoozed('prod/db', run.fingerprint!, new Date(until.getTime() + 1000))).toBe(false);
    expect(await store.isSnoozed('prod/db', 'e'.repeat(64), app.now.value)).toBe(false);
    expect((await store.listAudit({ runId: run.id })).find((a) => a.action === 'rejected')).toMatchObject({
      actor: AUTHOR,
      detail: { reason: 'intended: the console change stays' },
    });

    // A rejected run can be neither approved nor rejected again.
    expect(await approveRun(deps, stack, run.id, LEAD1)).toMatchObject({ status: 'refused', reason: 'not_awaiting' });
    expect(await rejectRun(deps, stack, run.id, LEAD1)).toMatchObject({ status: 'refused', reason: 'not_awaiting' });
    expect(await actions(store, run.id)).toEqual(
      [
        `${OUTSIDER}:reject_refused`,
        `${AUTHOR}:rejected`,
        `${LEAD1}:approve_refused`,
        `${LEAD1}:reject_refused`,
      ].sort(),
    );
  });

  it('refuses an expired plan, marks the run expired, says so and asks for a new plan', async () => {
    const { app, deps, store, stack, run, checksRequested } = await setupWaiting('prod/db');
    const expiredEvents: unknown[] = [];
    deps.bus.on('plan_expired', (event) => void expiredEvents.push(event));
    app.now.value = new Date(app.now.value.getTime() + 61 * 60_000);

    const outcome = await approveRun(deps, stack, run.id, LEAD1);
    expect(outcome).toMatchObject({ status: 'refused', reason: 'expired', run: { state: 'expired' } });
    expect(expiredEvents).toMatchObject([{ stack: 'prod/db', stale: false, run: { id: run.id, state: 'expired' } }]);
    expect(checksRequested).toEqual(['prod/db']);
    if (outcome.status !== 'refused') throw new Error('unreachable');
    expect(outcome.message).toMatch(/older than the 1h .*A new plan is needed/);
    expect((await store.getRun(run.id))?.state).toBe('expired');
    expect(await store.listApprovals(run.id)).toEqual([]);
    expect(await store.listAudit({ runId: run.id })).toMatchObject([
      { action: 'approve_refused', detail: { reason: 'expired' } },
    ]);
  });

  it('checks rights first: a user in no group on a 5-hour-old plan changes nothing', async () => {
    const { app, deps, store, stack, run, checksRequested } = await setupWaiting('prod/db');
    const expiredEvents: unknown[] = [];
    deps.bus.on('plan_expired', (event) => void expiredEvents.push(event));
    app.now.value = new Date(app.now.value.getTime() + 5 * 3_600_000);

    const outcome = await approveRun(deps, stack, run.id, OUTSIDER);
    expect(outcome).toMatchObject({ status: 'refused', reason: 'not_in_group' });
    expect((await store.getRun(run.id))?.state).toBe('drifted');
    expect(expiredEvents).toEqual([]);
    expect(checksRequested).toEqual([]);
    expect((await store.listAudit({ runId: run.id })).map((a) => `${a.actor}:${a.action}`)).toEqual([
      `${OUTSIDER}:approve_refused`,
    ]);
  });

  it('refuses when no rule covers the stack, and for an unknown run', async () => {
    const { deps, store, stack, run } = await setupWaiting('dev/app');
    const outcome = await approveRun(deps, stack, run.id, LEAD1);
    expect(outcome).toMatchObject({
      status: 'refused',
      reason: 'no_rule',
      message: expect.stringContaining('dev/app'),
    });
    expect(await rejectRun(deps, stack, run.id, LEAD1)).toMatchObject({ status: 'refused', reason: 'no_rule' });
    expect((await store.getRun(run.id))?.state).toBe('drifted');
    expect(await approveRun(deps, stack, 'r_nonexistent', LEAD1)).toMatchObject({
      status: 'refused',
      reason: 'not_found',
    });
  });

  it('refuses when the author of the change cannot be looked up: not knowing is a no', async () => {
    const { deps, store, stack, run } = await setupWaiting('prod/db');
    const githubDown = {
      ...deps,
      authorOf: async () => {
        throw new ExternalServiceError('github', 'HTTP 502', true);
      },
    };
    expect(await approveRun(githubDown, stack, run.id, LEAD1)).toMatchObject({
      status: 'refused',
      reason: 'author_unknown',
    });
    expect(await store.listApprovals(run.id)).toEqual([]);
    // Rejecting needs no author: saying no is always safe.
    expect(await rejectRun(githubDown, stack, run.id, LEAD1)).toMatchObject({ status: 'rejected' });
  });

  it('resolves Slack user groups through the emulator, and refuses, saying why, while Slack is down', async () => {
    emulator = await startSlackEmulator({ usergroups: [{ id: 'S0ONCALL', handle: 'oncall', users: [ONCALL] }] });
    const call = createSlackApi({
      token: emulator.token,
      apiUrl: emulator.apiUrl,
      logger: createLogger({ level: 'silent', redact: (l) => l }),
    }).call;
    const { deps, store, stack, run } = await setupWaiting('staging/app', { call });
    await emulator.down();
    const outcome = await approveRun(deps, stack, run.id, ONCALL);
    expect(outcome).toMatchObject({
      status: 'refused',
      reason: 'slack_unavailable',
      message: expect.stringContaining('oncall'),
    });
    expect(await rejectRun(deps, stack, run.id, ONCALL)).toMatchObject({
      status: 'refused',
      reason: 'slack_unavailable',
    });
    expect((await store.getRun(run.id))?.state).toBe('drifted');
    expect(await store.listApprovals(run.id)).toEqual([]);
    expect((await store.listAudit({ runId: run.id })).map((a) => a.detail?.reason)).toEqual([
      'slack_unavailable',
      'slack_unavailable',
    ]);

    await emulator.up();
    expect(await approveRun(deps, stack, run.id, LEAD1)).toMatchObject({ status: 'refused', reason: 'not_in_group' });
    expect(await approveRun(deps, stack, run.id, ONCALL)).toMatchObject({
      status: 'complete',
      run: { state: 'approved' },
    });
    expect(emulator.calls('usergroups.users.list').map((c) => c.args.usergroup)).toEqual(['S0ONCALL']);
  });
});
