/**
 * The Slack side of `serve`, wired from the app context: the outbox worker, the notifier on the event
 * bus, the listeners, and the re-drive of applies a stop interrupted between approval and apply.
 */
import type { App } from '@slack/bolt';
import { z } from 'zod';
import type { GitSources } from '../../ports/git.js';
import type { AppContext } from '../../app/context.js';
import { errorMessage } from '../../domain/errors.js';
import type { Run } from '../../domain/run/model.js';
import { countOutboxFailure, type Metrics } from '../../metrics/registry.js';
import type { CheckOutcome } from '../../services/check-stack.js';
import type { GitHubClient } from '../../ports/github.js';
import type { RemediationDeps } from '../../services/open-remediation-pr.js';
import type { Scheduler } from '../../services/scheduler.js';
import { createSlackApi } from '../api.js';
import type { SlackSettings } from '../env.js';
import * as actions from '../listeners/actions/index.js';
import * as commands from '../listeners/commands/index.js';
import * as events from '../listeners/events/index.js';
import { escalateStaleDrift } from '../notifier/escalate.js';
import { createNotifier } from '../notifier/notifier.js';
import { loadPolicy } from '../notifier/load-analysis.js';
import { createRunMessages } from '../notifier/run-messages.js';
import { createOutboxWorker, type OutboxWorkerOptions } from '../outbox/worker.js';
import { createUsergroupResolver } from '../usergroups.js';
import { changeAuthors } from '../../services/change-authors.js';
import { createRunApplier } from './apply-approved.js';
import type { SlackAppDeps } from './deps.js';
import { createJobs } from './jobs.js';

export interface SlackApp {
  deps: SlackAppDeps;
  register(app: App): void;
  /** Starts the outbox worker and re-drives approved runs left by an earlier stop. */
  start(): void;
  /** Stops taking events, waits for running jobs, sends held alerts, stops the worker. */
  stop(): Promise<void>;
  /** Everything handed off so far is done and the outbox is drained (tests, benchmarks). */
  settle(): Promise<void>;
  /** Raises drift unresolved past `slack.onCall.escalateAfter` (also run every minute); returns how many. */
  escalate(): number;
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
}

export function createSlackApp(options: SlackAppOptions): SlackApp {
  const { context, scheduler, metrics, settings } = options;
  const { config, logger, store } = context;
  // slackSettingsFor checked this before anything started.
  if (!config.slack) throw new Error('createSlackApp needs config.slack');
  const now = context.deps.now;
  const api = createSlackApi({ token: settings.botToken, ...(settings.apiUrl ? { apiUrl: settings.apiUrl } : {}), logger });
  // A run's authors do not change, and asking GitHub takes a call per commit: once per run (recent runs).
  const authors = new Map<string, Promise<string[]>>();
  const authorsOf = (run: Run): Promise<string[]> => {
    const known = authors.get(run.id);
    if (known) return known;
    const asked = changeAuthors({ ...(options.git ? { git: options.git } : {}), ...(options.github ? { github: options.github } : {}), store, stack: context.stack, logger }, run);
    // A failure is not remembered: the next click asks again.
    asked.catch(() => authors.delete(run.id));
    authors.set(run.id, asked);
    if (authors.size > 100) authors.delete(authors.keys().next().value!);
    return asked;
  };
  const services = {
    ...context.deps,
    ...(options.git ? { git: options.git } : {}),
    slackStore: store,
    usergroups: createUsergroupResolver({ call: api.call, ttlMs: config.slack.usergroupCacheTtl, now, logger }),
    approvers: config.approvers,
    snoozeMs: config.defaults.snooze,
    policyOf: (run: Run) => loadPolicy(context.deps, run.id),
    authorOf: authorsOf,
  };
  const messages = createRunMessages({ config, store, services, stack: context.stack, canRemediate: Boolean(options.remediation) });
  const applier = createRunApplier({ services, scheduler, messages, stack: context.stack });
  // When the last Slack request came in: background work yields to a burst of them (see jobs.ts).
  let lastRequestAt = Number.NEGATIVE_INFINITY;
  const jobs = createJobs({ logger, busy: () => performance.now() - lastRequestAt < 2 });
  let workspaceUrl: string | undefined;
  const deps: SlackAppDeps = {
    config,
    services,
    store,
    scheduler,
    messages,
    applier,
    jobs,
    api,
    logger,
    now,
    stack: context.stack,
    ...(options.remediation ? { remediation: options.remediation } : {}),
    workspaceUrl: () => {
      lookUpWorkspace();
      return workspaceUrl;
    },
  };

  let lookup: Promise<void> | undefined;
  // Never awaited on the way to a page (settle() aside): a page goes without its link rather than wait for it.
  function lookUpWorkspace(): void {
    if (workspaceUrl !== undefined || lookup) return;
    lookup = api
      .call('auth.test', {})
      .then((answer) => {
        workspaceUrl = AuthTestAnswer.parse(answer).url;
      })
      .catch((err: unknown) => logger.debug({ err: errorMessage(err) }, 'workspace address not known yet; asked again when a link needs it'))
      .finally(() => (lookup = undefined));
  }

  const escalateDeps = { config, store, messages, stack: context.stack, now };
  let escalation: NodeJS.Timeout | undefined;
  const notifier = createNotifier({ config, store, bus: context.deps.bus, messages, stack: context.stack, now, logger });
  const worker = createOutboxWorker({
    store,
    api,
    ...(options.deliverers ? { deliverers: options.deliverers } : {}),
    now,
    logger,
    onDelivered: () => metrics.outboxPending.set(store.pendingCount()),
    onFailed: (item, _error, outcome) => {
      countOutboxFailure(metrics, item.method, outcome.dead);
      metrics.outboxPending.set(store.pendingCount());
    },
  });

  return {
    deps,
    register(app) {
      app.use(async ({ next }) => {
        lastRequestAt = performance.now();
        await next();
      });
      actions.register(app, deps);
      commands.register(app, deps);
      events.register(app, deps);
    },
    start() {
      lookUpWorkspace();
      worker.start(options.outboxPollMs ?? 250);
      escalation = setInterval(() => jobs.run('escalate', async () => escalateStaleDrift(escalateDeps)), 60_000);
      escalation.unref();
      for (const run of store.listRuns({ states: ['approved'] })) {
        const actor = store.listApprovals(run.id).at(-1)?.userId ?? 'system';
        logger.warn({ runId: run.id, stack: run.stack }, 'approved run was not applied before the last stop; applying it now');
        jobs.run('apply-after-restart', () => applier.apply(run, actor));
      }
    },
    escalate: () => escalateStaleDrift(escalateDeps),
    workspaceUrl: deps.workspaceUrl,
    async stop() {
      clearInterval(escalation);
      notifier.stop();
      await jobs.idle();
      await notifier.flush().catch((err: unknown) => logger.error({ err: errorMessage(err) }, 'held alerts not sent'));
      await worker.stop();
    },
    async settle() {
      await lookup;
      await jobs.idle();
      await notifier.flush();
      await jobs.idle();
      await worker.drain();
    },
  };
}
