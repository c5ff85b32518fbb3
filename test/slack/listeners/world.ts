/**
 * The real parts a listener's handler is given, without `serve`: the composition root over a real SQLite
 * file (makeTestApp), the real usergroup resolver and Slack API against the emulator, the real run
 * messages and notifier, and recording seams for what a handler only asks for (apply, requestCheck, the
 * scheduler). `told` keeps every text the person was told.
 */
import { runContent } from '../../../src/services/notify/run-content.js';
import { App, type Receiver } from '@slack/bolt';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { heldByAnother } from '../../../src/adapters/store/shared/process-owner.js';
import type { Run } from '../../../src/domain/run/model.js';
import type { RunState } from '../../../src/domain/run/state.js';
import type { CheckOutcome } from '../../../src/services/check/check-stack.js';
import { createJobs } from '../../../src/services/runtime/jobs.js';
import { storeArtifact } from '../../../src/services/runtime/artifacts.js';
import { visibleStacks } from '../../../src/services/status/visibility.js';
import { createSlackApi } from '../../../src/adapters/slack/api.js';
import type { SlackMessage } from '../../../src/slack/blocks/message.js';
import type { SlackDeps } from '../../../src/slack/slack-deps.js';
import type { Tell } from '../../../src/slack/listeners/tell.js';
import { createNotifier, type Notifier } from '../../../src/slack/notifier/notifier.js';
import { createRunMessages } from '../../../src/slack/notifier/run-messages.js';
import type { ButtonClick } from '../../../src/slack/payloads.js';
import { createSlackDirectory } from '../../../src/adapters/slack/directory.js';
import { createUsergroupResolver } from '../../../src/adapters/slack/usergroups.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { approvers, slack } from '../../helpers/config-builder.js';
import { startSlackEmulator, type SlackEmulator } from '../../helpers/slack-emulator.js';
import { ALL_FIXTURE_SECRETS, fixtureAnalysis } from '../blocks/helpers.js';
import { textOf } from '../../e2e/fixtures.js';

export { LEAD1, LEAD2, LEAD3, OUTSIDER } from '../../e2e/fixtures.js';
import { LEAD1, LEAD2, LEAD3 } from '../../e2e/fixtures.js';

export const CHANNEL = 'C0ALERTS';
/** Two approvals from sre-leads. */
export const PROD = 'prod/network';
/** One approval, from sre-leads or the Slack user group @oncall. */
export const STAGING = 'staging/network';
/** No approvers rule covers it. */
export const UNRULED = 'dev/app';
/** Runs of it are in the store, but the stack is no longer in the config. */
export const GONE = 'legacy/vpc';
/** Only in the Slack user group @oncall, which the emulator knows. */
export const ONCALL = 'U0ONCALL';
/** A GitHub login that `approvers.authors` maps to LEAD1. */
export const LEAD1_LOGIN = 'lead-one';
export const MESSAGE = { channel: CHANNEL, ts: '1700000000.000100' };

/** The path from `planning` to each state a test asks for. */
const PATHS: Partial<Record<RunState, RunState[]>> = {
  planning: [],
  drifted: ['drifted'],
  pending_approval: ['pending_approval'],
  no_changes: ['no_changes'],
  errored: ['errored'],
  approved: ['drifted', 'approved'],
  applying: ['drifted', 'applying'],
  applied: ['drifted', 'applying', 'applied'],
  rejected: ['drifted', 'rejected'],
  superseded: ['drifted', 'superseded'],
  expired: ['drifted', 'expired'],
};

export interface RunOptions {
  /** Store the analysis of a real plan (test/fixtures/plans/data-changes.json) as the run's artifact. */
  analysis?: boolean;
  /** The run has its interactive message in the channel. */
  message?: boolean;
  supersededBy?: string;
  kind?: Run['kind'];
  commitSha?: string;
}

export interface Recorded {
  applied: { runId: string; state: RunState; actor: string }[];
  checksRequested: string[];
  scheduled: { stack: string; trigger: string | undefined }[];
  exclusive: string[];
}

export interface ListenerWorld {
  app: TestApp;
  /** The real notifier on the app's bus: it renders what the services publish (an approval, a rejection). */
  notifier: Notifier;
  emulator: SlackEmulator;
  deps: SlackDeps;
  store: SlackDeps['store'];
  /** Every text told to the person, in order (fallback text and blocks). */
  told: string[];
  tell: Tell;
  recorded: Recorded;
  /** What `scheduler.request` answers; `running` is what `scheduler.status()` says runs. */
  scheduler: {
    answer: (stack: string) => Promise<CheckOutcome>;
    running: string[];
    exclusiveAnswer: () => Promise<unknown>;
  };
  /** The GitHub logins `authorOf` answers for a run (absent: no author, as for drift). */
  authors: Map<string, string[]>;
  run(stack: string, state: RunState, options?: RunOptions): Promise<Run>;
  click(runId: string | undefined, userId: string, more?: Partial<ButtonClick>): ButtonClick;
  /** Every outbox item, delivered or not, in order. */
  outbox(): { key: string; method: string; payload: Record<string, unknown> }[];
  /** The audit actions, in order (of a run, or of a stack, or all). */
  audit(query?: { runId?: string; stack?: string }): Promise<string[]>;
  /** What a refused handler must leave untouched (the audit aside: refusals are audited). */
  snapshot(runId?: string): unknown;
  warnings(): string;
}

/** Per test: a fresh world, closed after the test. */
export function useListenerWorld(): (options?: { remediation?: SlackDeps['remediation'] }) => Promise<ListenerWorld> {
  let current: ListenerWorld | undefined;
  afterEach(async () => {
    current?.notifier.stop();
    await current?.emulator.close();
    await current?.app.close();
    current = undefined;
  });
  return async (options = {}) => (current = await listenerWorld(options));
}

async function listenerWorld(options: { remediation?: SlackDeps['remediation'] }): Promise<ListenerWorld> {
  const emulator = await startSlackEmulator({ usergroups: [{ id: 'S0ONCALL', handle: 'oncall', users: [ONCALL] }] });
  const app = await makeTestApp({
    stacks: { [PROD]: undefined, [STAGING]: undefined, [UNRULED]: undefined },
    stackSettings: {
      [PROD]: { environment: 'prod' },
      [STAGING]: { environment: 'staging' },
      [UNRULED]: { environment: 'dev' },
    },
    config: {
      ...slack(CHANNEL),
      ...approvers(
        { 'sre-leads': [LEAD1, LEAD2, LEAD3], oncall: { usergroups: ['@oncall'] } },
        [
          { environments: ['prod'], count: 2, from: ['sre-leads'] },
          { stacks: 'staging/*', count: 1, from: ['sre-leads', 'oncall'] },
        ],
        { authors: { [LEAD1_LOGIN]: LEAD1 } },
      ),
    },
  });
  const { context } = app;
  const { config, store, logger } = context;
  const now = context.deps.now;
  const api = createSlackApi({ token: emulator.token, apiUrl: emulator.apiUrl, logger });
  const recorded: Recorded = { applied: [], checksRequested: [], scheduled: [], exclusive: [] };
  const told: string[] = [];
  const authors = new Map<string, string[]>();
  const scheduler: ListenerWorld['scheduler'] = {
    answer: (stack) => Promise.reject(new Error(`no check answer set for ${stack}`)),
    running: [],
    exclusiveAnswer: () => Promise.reject(new Error('no exclusive answer set')),
  };
  const messages = createRunMessages({
    config,
    store,
    content: runContent(context.deps),
    stack: context.stack,
    canRemediate: Boolean(options.remediation),
  });
  const notifier = createNotifier({
    config,
    store,
    bus: context.deps.bus,
    messages,
    stack: context.stack,
    now,
    logger,
  });
  const deps: SlackDeps = {
    visibleTo: (userId) =>
      visibleStacks(
        { ...deps, visibility: config.slack?.visibility, channelOf: (stack) => messages.channelOf(stack) },
        userId,
        config.stacks,
      ),
    ...context.deps,
    store,
    usergroups: createUsergroupResolver({ call: api.call, ttlMs: 60_000, now, logger }),
    directory: createSlackDirectory({ call: api.call, ttlMs: 60_000, now }),
    approvers: config.approvers,
    snoozeMs: config.defaults.snooze,
    authorOf: async (run) => authors.get(run.id),
    requestCheck: (stack) => void recorded.checksRequested.push(stack),
    config,
    scheduler: {
      request: (stack, trigger) => {
        recorded.scheduled.push({ stack, trigger });
        return scheduler.answer(stack);
      },
      exclusive: async <U>(stack: string) => {
        recorded.exclusive.push(stack);
        return (await scheduler.exclusiveAnswer()) as U;
      },
      status: () => ({ running: [...scheduler.running], queued: [] }),
    },
    messages,
    apply: async (run, actor) => void recorded.applied.push({ runId: run.id, state: run.state, actor }),
    jobs: createJobs({ logger }),
    api,
    stack: context.stack,
    heldByAnother: (lock) => heldByAnother(lock, now()),
    ...(options.remediation ? { remediation: options.remediation } : {}),
    workspaceUrl: () => 'https://acme.slack.com/',
  };

  const dbPath = join(config.dataDir, 'driftgate.db');
  const outbox = () => {
    const db = new Database(dbPath, { readonly: true });
    try {
      const rows = db.prepare('SELECT key, method, payload FROM outbox ORDER BY id').all() as {
        key: string;
        method: string;
        payload: string;
      }[];
      return rows.map((r) => ({
        key: r.key,
        method: r.method,
        payload: JSON.parse(r.payload) as Record<string, unknown>,
      }));
    } finally {
      db.close();
    }
  };
  const audit = async (query: { runId?: string; stack?: string } = {}) =>
    (await store.listAudit(query)).map((a) => a.action);

  return {
    app,
    notifier,
    emulator,
    deps,
    store,
    told,
    tell: async (message: SlackMessage) => void told.push(textOf(message)),
    recorded,
    scheduler,
    authors,
    async run(stack, state, runOptions = {}) {
      await store.upsertStack(stack);
      let run = await store.createRun({
        stack,
        trigger: 'schedule',
        ...(runOptions.commitSha ? { commitSha: runOptions.commitSha } : {}),
      });
      const analysis = runOptions.analysis ? fixtureAnalysis('data-changes.json') : undefined;
      if (analysis) await storeArtifact(context.deps, run.id, 'analysis', JSON.stringify(analysis));
      let from: RunState = 'planning';
      for (const to of PATHS[state] ?? []) {
        const patch =
          from === 'planning'
            ? {
                kind: runOptions.kind ?? 'drift',
                fingerprint: analysis?.fingerprint ?? `fp-${run.id}`,
                counts: analysis?.counts ?? { create: 0, update: 1, delete: 0, replace: 0, read: 0 },
                planSha256: 'a'.repeat(64),
              }
            : to === 'superseded' && runOptions.supersededBy
              ? { supersededBy: runOptions.supersededBy }
              : {};
        const moved = await store.transition(run.id, from, to, patch);
        if (!moved) throw new Error(`test setup: ${from} -> ${to} refused`);
        run = moved;
        from = to;
      }
      if (runOptions.message) await store.setMessage({ runId: run.id, ...MESSAGE });
      return run;
    },
    click: (runId, userId, more = {}) => ({
      userId,
      userName: undefined,
      actionId: 'driftgate.test',
      value: runId,
      triggerId: 'trigger-1',
      responseUrl: undefined,
      message: MESSAGE,
      inView: false,
      ...more,
    }),
    outbox,
    audit,
    snapshot: async (runId) => ({
      run: runId ? await store.getRun(runId) : undefined,
      approvals: runId ? await store.listApprovals(runId) : [],
      outbox: outbox(),
      applied: [...recorded.applied],
      checks: [...recorded.checksRequested],
    }),
    warnings: () => app.logs.filter((l) => l.includes('"level":40')).join('\n'),
  };
}

/**
 * A real Bolt App with no HTTP receiver, driftgate's listeners registered on it: `send` hands it one
 * payload through `processEvent`, with an ack that records when it came relative to the jobs started.
 */
export function boltWith(w: ListenerWorld, register: (app: App, deps: SlackDeps) => void) {
  const order: string[] = [];
  const jobs = w.deps.jobs;
  const deps: SlackDeps = {
    ...w.deps,
    jobs: {
      run: (name, work) => {
        order.push(`job ${name}`);
        jobs.run(name, work);
      },
      idle: () => jobs.idle(),
    },
  };
  const receiver: Receiver = { init: () => undefined, start: async () => undefined, stop: async () => undefined };
  const app = new App({
    token: w.emulator.token,
    receiver,
    tokenVerificationEnabled: false,
    clientOptions: { slackApiUrl: w.emulator.apiUrl },
  });
  register(app, deps);
  return {
    order,
    async send(body: Record<string, unknown>): Promise<void> {
      await app.processEvent({ body, ack: async () => void order.push('ack') });
      await jobs.idle();
    },
  };
}

/**
 * The person was told, once, the summary of `runId`'s plan (the real plan of the fixture, masked), and
 * nothing was posted or audited.
 */
export async function expectToldPlanSummary(w: ListenerWorld, stack: string, runId: string): Promise<void> {
  expect(w.told).toHaveLength(1);
  expect(w.told[0]).toContain(`Latest plan: ${stack}`);
  expect(w.told[0]).toContain(runId);
  expect(w.told[0]).toContain('terraform_data.web');
  for (const secret of ALL_FIXTURE_SECRETS) expect(w.told[0]).not.toContain(secret);
  expect(w.outbox()).toEqual([]);
  expect(await w.audit()).toEqual([]);
}
