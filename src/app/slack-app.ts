/**
 * The Slack side of `serve`, wired from the app context: the outbox worker, the notifier on the event
 * bus, and the listeners with the deps they use.
 */
import type { App } from '@slack/bolt';
import { z } from 'zod';
import type { GitSources } from '../ports/git.js';
import { errorMessage } from '../domain/errors.js';
import { countOutboxFailure, type Metrics } from '../metrics/registry.js';
import type { GitHubClient } from '../ports/github.js';
import type { CheckOutcome } from '../services/check/check-stack.js';
import type { Jobs } from '../services/runtime/jobs.js';
import type { RemediationDeps } from '../services/remediation/open-remediation-pr.js';
import type { Scheduler } from '../services/runtime/scheduler.js';
import type { PoolHealth } from '../domain/pool/pool-health.js';
import { visibleStacks } from '../services/status/visibility.js';
import { createSlackApi } from '../adapters/slack/api.js';
import type { SlackSettings } from '../config/slack-settings.js';
import * as actions from '../slack/listeners/actions/index.js';
import * as commands from '../slack/listeners/commands/index.js';
import type { SlackDeps } from '../slack/slack-deps.js';
import * as events from '../slack/listeners/events/index.js';
import * as views from '../slack/listeners/views/index.js';
import { escalateStaleDrift } from '../slack/notifier/escalate.js';
import { createOutboxWorker, type OutboxWorkerOptions } from '../services/outbox/outbox-worker.js';
import { createSlackDirectory } from '../adapters/slack/directory.js';
import { createUsergroupResolver } from '../adapters/slack/usergroups.js';
import { heldByAnother } from '../adapters/store/shared/process-owner.js';
import { approvalDeps } from './approval-deps.js';
import { runMessaging } from './run-messaging.js';
import type { AppContext } from './context.js';

/** How often the leader looks for alerts a dead process held in their digest window. */
const HELD_SWEEP_MS = 5_000;

export interface SlackApp {
  register(app: App): void;
  /** Starts the outbox worker and the escalation timer. */
  start(): void;
  /** True while Slack requests are arriving (one came in the last few ms): background work yields to them. */
  busy(): boolean;
  /** Stops taking events, waits for running jobs, sends held alerts, stops the worker. */
  stop(): Promise<void>;
  /** Everything handed off so far is done and the outbox is drained (tests, benchmarks). */
  settle(): Promise<void>;
  /** Raises drift unresolved past `slack.onCall.escalateAfter` (also run every minute); returns how many. */
  escalate(): Promise<number>;
  /**
   * The workspace's address (`https://acme.slack.com/`) for links to messages, once `auth.test` has
   * answered. Looked up at start; after a failure, asking again retries in the background.
   */
  workspaceUrl(): string | undefined;
}

const AuthTestAnswer = z.object({ url: z.string().url() });

export interface SlackAppOptions {
  context: AppContext;
  scheduler: Scheduler<CheckOutcome>;
  /** Background work (shared with `serve`, so that shutdown waits for all of it). */
  jobs: Jobs;
  /** The apply use case, for the click that completes a run's approvals. */
  apply: SlackDeps['apply'];
  /** Asks for a fresh plan of a stack. */
  requestCheck(stack: string): void;
  metrics: Metrics;
  settings: SlackSettings;
  /** How often the outbox is polled. */
  outboxPollMs?: number;
  /** Checkouts of Git-sourced stacks: an approved run is applied at the commit it planned at. */
  git?: GitSources;
  /** Remediation PRs, when GitHub is configured. */
  remediation?: RemediationDeps;
  /** GitHub, when configured: who opened the PR a pending commit came through may not approve it. */
  github?: GitHubClient;
  /** Outbox deliverers for items that are not Slack calls (PagerDuty pages): one worker per database file. */
  deliverers?: OutboxWorkerOptions['deliverers'];
  /** Whether this process delivers the outbox and escalates (the leader of several `serve`s). */
  leading?: () => boolean;
  /** Each worker pool's live workers and queue (runners: workers), for `/drift status` and the App Home. */
  pools?: () => Promise<PoolHealth[]>;
}

export function createSlackApp(options: SlackAppOptions): SlackApp {
  const { context, settings } = options;
  const { config, logger, store } = context;
  // slackSettingsFor checked this before anything started.
  if (!config.slack) throw new Error('createSlackApp needs config.slack');
  const now = context.deps.now;
  const api = createSlackApi({
    token: settings.botToken,
    ...(settings.apiUrl ? { apiUrl: settings.apiUrl } : {}),
    logger,
  });
  const { messages, notifier } = runMessaging(context, { canRemediate: Boolean(options.remediation) });
  // When the last Slack request came in: background work yields to a burst of them (see services/runtime/jobs.ts).
  let lastRequestAt = Number.NEGATIVE_INFINITY;
  const { jobs } = options;
  const workspace = workspaceLookup(api, logger);
  const deps = slackDeps(options, api, messages, workspace.url);
  const worker = outboxWorker(options, api);
  const escalateDeps = { config, store, messages, stack: context.stack, now };
  let loops: { stop(): void } | undefined;

  return {
    register(app) {
      app.use(async ({ next }) => {
        lastRequestAt = performance.now();
        await next();
      });
      actions.register(app, deps);
      commands.register(app, deps);
      events.register(app, deps);
      views.register(app, deps);
    },
    busy: () => performance.now() - lastRequestAt < 2,
    start() {
      workspace.url();
      worker.start(options.outboxPollMs ?? 250);
      loops = startLeaderLoops(jobs, options.leading ?? (() => true), {
        resumeHeld: () => notifier.resume(),
        escalate: () => escalateStaleDrift(escalateDeps),
      });
    },
    escalate: () => escalateStaleDrift(escalateDeps),
    workspaceUrl: deps.workspaceUrl,
    async stop() {
      loops?.stop();
      notifier.stop();
      await jobs.idle();
      await notifier.flush().catch((err: unknown) => logger.error({ err: errorMessage(err) }, 'held alerts not sent'));
      await worker.stop();
    },
    async settle() {
      await workspace.pending();
      await jobs.idle();
      await notifier.flush();
      await jobs.idle();
      await worker.drain();
    },
  };
}

/** Delivers the outbox (Slack messages, and pages when PagerDuty is on) while this process leads. */
function outboxWorker(options: SlackAppOptions, api: ReturnType<typeof createSlackApi>) {
  const { context, metrics } = options;
  const { store, logger } = context;
  return createOutboxWorker({
    store,
    api,
    ...(options.deliverers ? { deliverers: options.deliverers } : {}),
    now: context.deps.now,
    logger,
    ...(options.leading ? { active: options.leading } : {}),
    onDelivered: async () => metrics.outboxPending.set(await store.pendingCount()),
    onFailed: async (item, _error, outcome) => {
      countOutboxFailure(metrics, item.method, outcome.dead);
      metrics.outboxPending.set(await store.pendingCount());
    },
  });
}

/** What the Slack listeners are handed: the services, the approval rules, Slack's API and lookups. */
function slackDeps(
  options: SlackAppOptions,
  api: ReturnType<typeof createSlackApi>,
  messages: SlackDeps['messages'],
  workspaceUrl: () => string | undefined,
): SlackDeps {
  const { context, scheduler } = options;
  const { config, store, logger } = context;
  const slack = config.slack!;
  const now = context.deps.now;
  const deps: Omit<SlackDeps, 'visibleTo'> = {
    ...context.deps,
    ...(options.git ? { git: options.git } : {}),
    store,
    ...approvalDeps(context, {
      usergroups: createUsergroupResolver({ call: api.call, ttlMs: slack.usergroupCacheTtl, now, logger }),
      requestCheck: options.requestCheck,
      ...(options.git ? { git: options.git } : {}),
      ...(options.github ? { github: options.github } : {}),
    }),
    directory: createSlackDirectory({ call: api.call, ttlMs: slack.usergroupCacheTtl, now }),
    ...(options.pools ? { pools: options.pools } : {}),
    config,
    scheduler,
    messages,
    apply: options.apply,
    jobs: options.jobs,
    api,
    stack: context.stack,
    heldByAnother: (lock) => heldByAnother(lock, now()),
    ...(options.remediation ? { remediation: options.remediation } : {}),
    workspaceUrl,
  };
  const channelOf = (stack: string) => messages.channelOf(stack);
  return {
    ...deps,
    visibleTo: (userId) => visibleStacks({ ...deps, visibility: slack.visibility, channelOf }, userId, config.stacks),
  };
}

/**
 * The workspace's address, for links in pages: asked of Slack once (`auth.test`), again while unknown.
 * Never awaited on the way to a page (settle() aside): a page goes without its link rather than wait for it.
 */
function workspaceLookup(api: ReturnType<typeof createSlackApi>, logger: AppContext['logger']) {
  let known: string | undefined;
  let lookup: Promise<void> | undefined;
  const url = (): string | undefined => {
    if (known === undefined && !lookup)
      lookup = api
        .call('auth.test', {})
        .then((answer) => {
          known = AuthTestAnswer.parse(answer).url;
        })
        .catch((err: unknown) =>
          logger.debug({ err: errorMessage(err) }, 'workspace address not known yet; asked again when a link needs it'),
        )
        .finally(() => (lookup = undefined));
    return known;
  };
  return { url, pending: () => lookup };
}

/**
 * Held alerts belong to the store: whichever process leads posts those a dead one held, at start, when it
 * takes the lead, and every few seconds after (one sweep at a time). Stale drift is escalated each minute.
 */
function startLeaderLoops(
  jobs: SlackAppOptions['jobs'],
  leading: () => boolean,
  work: { resumeHeld: () => Promise<unknown>; escalate: () => Promise<unknown> },
) {
  let sweeping = false;
  const resumeHeld = () => {
    if (sweeping || !leading()) return;
    sweeping = true;
    jobs.run('resume-held-alerts', () => work.resumeHeld().finally(() => (sweeping = false)));
  };
  resumeHeld();
  const heldSweep = setInterval(resumeHeld, HELD_SWEEP_MS);
  heldSweep.unref();
  const escalation = setInterval(() => {
    if (leading()) jobs.run('escalate', work.escalate);
  }, 60_000);
  escalation.unref();
  return {
    stop() {
      clearInterval(escalation);
      clearInterval(heldSweep);
    },
  };
}
