import nodeCron from 'node-cron';
import { pagerdutySettingsFor } from '../adapters/pagerduty/env.js';
import { pagerdutyDeliverers } from '../adapters/pagerduty/page-deliverer.js';
import { createPager } from '../services/notify/page-oncall.js';
import { slackLinks } from '../slack/message-links.js';
import { createOutboxWorker } from '../services/outbox/outbox-worker.js';
import { GithubConfig, type DriftgateConfig } from '../config/schema.js';
import { metricsAddressFrom } from '../http/metrics-address.js';
import type { HttpServer } from '../http/server.js';
import type { Run } from '../domain/run/model.js';
import type { RunTrigger } from '../domain/run/state.js';
import type { CheckOutcome } from '../services/check/check-stack.js';
import { checkStackFromSource } from '../services/check/check-stack-from-source.js';
import { createGitHubClient, type GitHubClientOptions } from '../adapters/github/client.js';
import { githubSettingsFor } from '../adapters/github/env.js';
import type { RemediationDeps } from '../services/remediation/open-remediation-pr.js';
import { terraformCodeChecks } from '../services/remediation/remediation-code-checks.js';
import { createGithubWebhookListener, GITHUB_WEBHOOK_PATH } from '../http/github-webhook/listener.js';
import { countOutboxFailure } from '../metrics/registry.js';
import { slackSettingsFor } from '../config/slack-settings.js';
import { createSlackApp, type SlackApp } from './slack-app.js';
import { createSlackRuntime, type SlackRuntime } from '../adapters/slack/slack-runtime.js';
import { removeWorkLeftovers, runRetention } from '../services/runtime/retention.js';
import { createScheduler, type Scheduler } from '../services/runtime/scheduler.js';
import { applyApprovedRun, type ApplyDeps } from '../services/apply/apply-approved-run.js';
import type { ApplyOutcome } from '../services/apply/apply-saved-plan.js';
import {
  type Recovered,
  recoverLeftRuns,
  sweepRunsOfDeadReplicas,
  tellRecovered,
} from '../services/apply/recover-at-start.js';
import { autoApplyAfterCheck } from '../services/apply/auto-apply.js';
import { createJobs, type Jobs } from '../services/runtime/jobs.js';
import type { SourceDeps } from '../services/source/resolve-stack-at-commit.js';
import type { GitHubClient } from '../ports/github.js';
import { createAppContext, type AppContext } from './context.js';
import { startServeLease, takeSqliteLease } from './serve-lease.js';
import { announceServing } from './serve-announce.js';
import { watchStoreHealth } from './store-health.js';
import type { LeaderLease } from '../ports/leader-lease.js';
import { listen, type ListenOptions, type ServeSockets } from './serve-sockets.js';
import { agentSettings, startAgentControlPlane } from './agent-control-plane.js';
import { watchUnservedPools } from './unserved-pools-watch.js';
import { startChangeEvents } from './change-events.js';
import { waitForStackLock } from '../services/runtime/stack-lock.js';
import { watchDiscovery, type RediscoveryOptions } from './rediscovery.js';
import { environmentValue } from '../config/environment.js';

export interface ServeOptions extends ListenOptions {
  env: Record<string, string | undefined>;
  now?: () => Date;
  logDestination?: NodeJS.WritableStream;
  /** The log format and level; default JSON at the config's `log.level`. */
  log?: { format: 'json' | 'human'; level: string };
  /** How often the Slack outbox is polled; default 250 ms. */
  outboxPollMs?: number;
  /** How often change events read what the store's resource index gained; default 10 s. */
  indexRefreshMs?: number;
  /** How often `/readyz` learns whether the store answers; default 5 s. */
  storeHealthMs?: number;
  /** How often a standby `serve` on a Postgres store asks for the lead; default 2 s. */
  leaseCheckMs?: number;
  /** How long a SQLite store's serve lease lasts unless renewed; default 30 s. */
  sqliteLeaseMs?: number;
  /** GitHub client tuning (retry waits, write pacing); tests shorten them. */
  github?: Omit<GitHubClientOptions, 'logger'>;
  /** With `discover` on `source.git`: the config loaded again at a newer head (the serve command's loader). */
  rediscover?: RediscoveryOptions['reload'];
  /** How often the branch is fetched to find stacks again; default 60 s. */
  rediscoverMs?: number;
}

export interface RunningServe {
  context: AppContext;
  scheduler: Scheduler<CheckOutcome>;
  health: HttpServer;
  /** `/metrics` on its own address, when METRICS_ADDRESS is set. */
  metricsServer?: HttpServer;
  /** The workers' agent API (`runners.agent`). */
  agent?: HttpServer;
  slack?: SlackRuntime;
  slackApp?: SlackApp;
  /** Whether this serve leads (runs the schedule, delivers the outbox); with SQLite, while it holds its lease. */
  leading(): boolean;
  /**
   * Graceful stop: no new checks, running plans get `defaults.shutdownTimeout`, the rest are interrupted.
   * `reason` (the signal, say) is logged at the start and the end, so the stop is never unexplained.
   */
  stop(reason?: string): Promise<void>;
}

/**
 * `driftgate serve`: crash recovery, the scheduler, retention, Prometheus metrics, health endpoints, and
 * the Slack app when SLACK_BOT_TOKEN is set, remediation PRs when GitHub credentials are set
 * (GITHUB_TOKEN or a GitHub App), and the GitHub webhook when GITHUB_WEBHOOK_SECRET is set.
 */
export async function startServe(config: DriftgateConfig, options: ServeOptions): Promise<RunningServe> {
  // Before anything starts: a Slack misconfiguration or a port in use fails here, with nothing left running.
  const settings: ServeSettings = {
    slackSettings: slackSettingsFor(config, options.env),
    pagerdutySettings: pagerdutySettingsFor(config, options.env),
    githubSettings: githubSettingsFor(options.env),
  };
  const ports = await listen(options, metricsAddressFrom(options.env));
  try {
    return await startServing(config, options, ports, settings);
  } catch (err) {
    await ports.close();
    throw err;
  }
}

/** Read from the environment before anything starts. */
interface ServeSettings {
  slackSettings: ReturnType<typeof slackSettingsFor>;
  pagerdutySettings: ReturnType<typeof pagerdutySettingsFor>;
  githubSettings: ReturnType<typeof githubSettingsFor>;
}

async function startServing(
  config: DriftgateConfig,
  options: ServeOptions,
  ports: ServeSockets,
  settings: ServeSettings,
): Promise<RunningServe> {
  // The control plane migrates the schema at its first start when it holds the owner role's URL.
  const context = await createAppContext(config, { ...options, ownerMayMigrate: true });
  let lease: LeaderLease | undefined;
  // Set once serve is up: what a standby does when it takes the lead.
  const promotion: Promotion = {};
  // What a start that fails half way must stop: its loops and connections would keep the process alive.
  const started: { stop(): Promise<void> }[] = [];
  try {
    lease =
      config.store?.type === 'postgres'
        ? await startServeLease(config.store, context.logger, {
            ...(options.leaseCheckMs ? { checkMs: options.leaseCheckMs } : {}),
            onLead: () => promotion.lead?.(),
          })
        : takeSqliteLease(config, context.logger, { ttlMs: options.sqliteLeaseMs });
    return await serveWith(context, lease, promotion, started, options, ports, settings);
  } catch (err) {
    // A pool of Postgres connections left open would keep the process alive after a failed start.
    for (const part of started.reverse()) await part.stop().catch(() => undefined);
    await lease?.stop();
    await context.close();
    throw err;
  }
}

/** How often the leader looks for runs left in flight by a replica that died. */
const DEAD_RUNS_SWEEP_MS = 10_000;

interface Promotion {
  lead?: () => void;
}

/** What serve starts, in the order it stops them (see `stopServing`). */
interface Serving {
  context: AppContext;
  scheduler: Scheduler<CheckOutcome>;
  jobs: Jobs;
  retention: { stop(): void | Promise<void> };
  rediscovery?: { stop(): Promise<void> };
  changeEvents?: Awaited<ReturnType<typeof startChangeEvents>>;
  poolWatch?: { stop(): void };
  agentPlane?: Awaited<ReturnType<typeof startAgentControlPlane>>;
  pager?: { stop(): void };
  storeHealth: { stop(): void };
  pageWorker?: { stop(): Promise<void> };
  slackApp?: SlackApp;
  slack?: SlackRuntime;
  deadRunsSweep?: NodeJS.Timeout;
  ports: ServeSockets;
  lease?: LeaderLease;
  /** Set when a stop began: readiness says so, and the leader's sweep stops. */
  state: { stopping: boolean };
}

async function serveWith(
  context: AppContext,
  lease: LeaderLease | undefined,
  promotion: Promotion,
  started: { stop(): Promise<void> }[],
  options: ServeOptions,
  ports: ServeSockets,
  settings: ServeSettings,
): Promise<RunningServe> {
  const { logger, store, deps } = context;
  const { metrics } = ports;
  const leading = (): boolean => !lease || lease.isLeader();
  // Gauges read the store at each scrape: right after a start they show the drift stored before it.
  const storeGauges = {
    driftedStacks: async () => (await store.listStacks()).filter((s) => s.openDrift).length,
    outboxPending: () => store.pendingCount(),
    leading,
  };
  metrics.readGaugesFrom(storeGauges);
  // What a process that died left behind is the leader's to recover: a standby recovers when it leads.
  const ledAtStart = leading();
  const recovered = ledAtStart ? await recoverLeftRuns(deps, true) : undefined;
  await prepareStore(context);
  deps.bus.onAny((event) => logger.info({ event: event.type, stack: event.stack, runId: event.run.id }, 'event'));
  const slackRef: { app?: SlackApp } = {};
  const outside = connectOutside(context, options, settings, () => slackRef.app?.workspaceUrl());
  // Background work (Slack handlers after their ack, automatic applies): shutdown and tests wait for it.
  const jobs = createJobs({ logger, busy: () => slackRef.app?.busy() ?? false });
  const work = await startWork(context, { options, metrics, leading, jobs, started, sources: outside.sources });
  if (work.agentPlane?.pools) metrics.readGaugesFrom({ ...storeGauges, pools: work.agentPlane.pools });
  const delivery = startDelivery(context, {
    options,
    settings,
    metrics,
    leading,
    leased: Boolean(lease),
    jobs,
    outside,
    work,
  });
  slackRef.app = delivery.slackApp;
  const state = { stopping: false };
  const deadRunsSweep = await takeOverLeftWork(deps, promotion, {
    jobs,
    apply: work.apply,
    recovered,
    ledAtStart,
    leading,
    sweep: lease !== undefined,
    stopping: () => state.stopping,
  });
  const storeHealth = openEndpoints(context, ports, options, {
    stopping: () => state.stopping,
    scheduler: work.scheduler,
    ...(delivery.slack ? { slack: delivery.slack } : {}),
    ...(work.changeEvents ? { changeEvents: work.changeEvents } : {}),
  });
  return exposeServing(
    {
      context,
      jobs,
      storeHealth,
      ports,
      state,
      ...work,
      ...delivery,
      ...(outside.pager ? { pager: outside.pager } : {}),
      ...(deadRunsSweep ? { deadRunsSweep } : {}),
      ...(lease ? { lease } : {}),
    },
    leading,
  );
}

/** Says serve is up, and hands out what callers (the CLI, tests) reach: the stop above all. */
function exposeServing(s: Serving, leading: () => boolean): RunningServe {
  const { ports } = s;
  announceServing(s.context.logger, {
    stacks: s.context.config.stacks,
    port: ports.health.port,
    ...(ports.metricsServer ? { metricsPort: ports.metricsServer.port } : {}),
    slack: Boolean(s.slackApp),
    standby: !leading(),
  });
  return {
    context: s.context,
    scheduler: s.scheduler,
    health: ports.health,
    ...(ports.metricsServer ? { metricsServer: ports.metricsServer } : {}),
    ...(s.agentPlane ? { agent: s.agentPlane.server } : {}),
    ...(s.slack ? { slack: s.slack } : {}),
    ...(s.slackApp ? { slackApp: s.slackApp } : {}),
    leading,
    async stop(reason = 'asked to stop') {
      if (s.state.stopping) return;
      s.state.stopping = true;
      await stopServing(s, reason);
    },
  };
}

/**
 * What the runs a process left were recovered to is told now that every listener is up. A standby that
 * takes the lead (the leader stopped or died) recovers what the leader left, as a start does; and with
 * several processes on one store, the leader sweeps for runs a replica that died left in flight.
 */
async function takeOverLeftWork(
  deps: AppContext['deps'],
  promotion: Promotion,
  o: {
    jobs: Jobs;
    apply: Runners['apply'];
    recovered: Recovered | undefined;
    ledAtStart: boolean;
    leading: () => boolean;
    sweep: boolean;
    stopping: () => boolean;
  },
): Promise<NodeJS.Timeout | undefined> {
  const tell = (found: Recovered) => tellRecovered(deps, o.jobs, o.apply, found);
  if (o.recovered) await tell(o.recovered);
  promotion.lead = () => o.jobs.run('take-the-lead', async () => tell(await recoverLeftRuns(deps, false)));
  if (!o.ledAtStart && o.leading()) promotion.lead();
  if (!o.sweep) return undefined;
  return setInterval(() => {
    if (o.leading() && !o.stopping()) o.jobs.run('recover-runs-of-dead-replicas', () => sweepRunsOfDeadReplicas(deps));
  }, DEAD_RUNS_SWEEP_MS);
}

/** Runs left by a process that died have no scratch dir worth keeping, and every stack has its row. */
async function prepareStore({ config, logger, store, deps }: AppContext): Promise<void> {
  // Their scratch dirs may still hold a raw saved plan: only the artifact store keeps one.
  const leftovers = await removeWorkLeftovers({ store, workDir: deps.workDir });
  if (leftovers.length) logger.warn({ removed: leftovers }, 'removed work dirs left by an earlier stop');
  for (const stack of config.stacks) await store.upsertStack(stack.name);
}

/** PagerDuty and GitHub, as the environment configures them; Slack links once the Slack app is up. */
function connectOutside(
  context: AppContext,
  options: ServeOptions,
  { slackSettings, pagerdutySettings, githubSettings }: ServeSettings,
  workspaceUrl: () => string | undefined,
) {
  const { config, logger, store, deps, git } = context;
  const pager = pagerdutySettings ? createPager({ ...deps, config, stack: context.stack }) : undefined;
  // The Slack app is created later; pages only ask for links once its worker delivers them.
  const links = slackSettings && config.slack ? slackLinks({ slack: config.slack, store, workspaceUrl }) : undefined;
  const deliverers = pagerdutySettings ? pagerdutyDeliverers(pagerdutySettings, links) : undefined;
  // GitHub, with credentials: remediation PRs, and the PRs (and their authors) of pending commits.
  const github = githubSettings
    ? createGitHubClient(githubSettings, { ...options.github, logger: logger.child({ component: 'github' }) })
    : undefined;
  return { pager, deliverers, github, sources: { git, ...(github ? { github } : {}) } };
}

/**
 * The work serve does: the agent API (checks and applies here, their terraform on the pools' workers),
 * change events, the scheduler and its runners, re-discovery and the daily retention. Change events start
 * before the runners: the checks' deps carry their hooks from there on.
 */
async function startWork(
  context: AppContext,
  parts: {
    options: ServeOptions;
    metrics: ServeSockets['metrics'];
    leading: () => boolean;
    jobs: Jobs;
    started: { stop(): Promise<void> }[];
    sources: Pick<SourceDeps, 'git'> & { github?: GitHubClient };
  },
) {
  const { config, deps } = context;
  const { options, metrics, leading, started } = parts;
  let eventCheck: (name: string) => Promise<unknown> = async () => undefined;
  const agent = agentSettings(config);
  const agentPlane = agent ? await startAgentControlPlane(context, agent) : undefined;
  if (agentPlane) {
    started.push(agentPlane);
    deps.terraform = agentPlane.terraform;
  }
  const changeEvents = await startChangeEvents(context, metrics, options.env, (name) => eventCheck(name), {
    ...(agentPlane ? { historyFor: (name: string) => agentPlane.historyFor(name) } : {}),
    ...(options.indexRefreshMs ? { indexRefreshMs: options.indexRefreshMs } : {}),
  });
  if (changeEvents) started.push(changeEvents);
  const runners = localRunners(
    context,
    { ...deps, ...parts.sources },
    parts.jobs,
    leading,
    metrics,
    agent?.concurrency,
  );
  // The workers' pools: work that waits with no live worker is said in Slack.
  const poolWatch = agentPlane ? watchUnservedPools(context, agentPlane.pools, leading) : undefined;
  if (poolWatch) started.push({ stop: async () => poolWatch.stop() });
  eventCheck = (name) => runners.queueCheck(name, 'event');
  runners.scheduler.start();
  // Stacks a commit adds or removes, found without a restart.
  const rediscovery =
    config.discoveredAt && options.rediscover
      ? watchDiscovery(context, {
          reload: options.rediscover,
          git: context.git,
          scheduler: runners.scheduler,
          intervalMs: options.rediscoverMs ?? 60_000,
        })
      : undefined;
  if (rediscovery) started.push(rediscovery);
  return {
    ...runners,
    retention: scheduleRetention(context, leading),
    ...(agentPlane ? { agentPlane } : {}),
    ...(changeEvents ? { changeEvents } : {}),
    ...(poolWatch ? { poolWatch } : {}),
    ...(rediscovery ? { rediscovery } : {}),
  };
}

/** Retention runs daily on the leader. */
function scheduleRetention({ config, store, deps, logger }: AppContext, leading: () => boolean) {
  return nodeCron.schedule('17 3 * * *', () => {
    if (!leading()) return;
    runRetention(
      { store, artifacts: deps.artifacts, workDir: deps.workDir, now: deps.now },
      {
        outbox: config.defaults.outboxRetention,
        outboxDead: config.defaults.outboxDeadRetention,
        artifacts: config.artifacts.retention,
      },
    )
      .then((removed) => logger.info({ removed }, 'retention'))
      .catch((err: unknown) => logger.error({ err }, 'retention failed'));
  });
}

/** Remediation PRs: GitHub credentials are enough; without them the button says what is missing. */
function remediationDeps(
  { store, deps, logger, git, config }: AppContext,
  github: GitHubClient | undefined,
  // Remediation's code is written where terraform runs: a pool's worker, or here.
  codify: RemediationDeps['codify'] | undefined,
): RemediationDeps | undefined {
  if (!github) return undefined;
  return {
    store,
    artifacts: deps.artifacts,
    logger,
    now: deps.now,
    secrets: deps.secrets,
    git,
    github,
    checks: terraformCodeChecks(deps.terraform, logger),
    ...(codify ? { codify } : {}),
    settings: config.github ?? GithubConfig.parse({}),
  };
}

/** The Slack app and its connection; without Slack, a worker that still delivers the pages. */
function startDelivery(
  context: AppContext,
  parts: {
    options: ServeOptions;
    settings: ServeSettings;
    metrics: ServeSockets['metrics'];
    leading: () => boolean;
    /** Several processes may serve one store: the Slack app acts only while this one leads. */
    leased: boolean;
    jobs: Jobs;
    outside: ReturnType<typeof connectOutside>;
    work: Awaited<ReturnType<typeof startWork>>;
  },
) {
  const { options, metrics, leading, outside, work } = parts;
  const { slackSettings } = parts.settings;
  const { deliverers, github } = outside;
  const remediation = remediationDeps(context, github, work.agentPlane?.codify);
  const pools = work.agentPlane?.pools;
  const slackApp = slackSettings
    ? createSlackApp({
        context,
        scheduler: work.scheduler,
        jobs: parts.jobs,
        apply: work.apply,
        requestCheck: work.requestCheck,
        metrics,
        settings: slackSettings,
        git: context.git,
        ...(options.outboxPollMs ? { outboxPollMs: options.outboxPollMs } : {}),
        ...(deliverers ? { deliverers } : {}),
        ...(remediation ? { remediation } : {}),
        ...(github ? { github } : {}),
        ...(parts.leased ? { leading } : {}),
        ...(pools ? { pools } : {}),
      })
    : undefined;
  const pageWorker =
    deliverers && !slackApp
      ? createOutboxWorker({
          store: context.store,
          deliverers,
          now: context.deps.now,
          logger: context.logger,
          active: leading,
          onFailed: (item, _error, outcome) => countOutboxFailure(metrics, item.method, outcome.dead),
        })
      : undefined;
  pageWorker?.start(options.outboxPollMs ?? 250);
  const slack = slackSettings
    ? createSlackRuntime({
        settings: slackSettings,
        logger: context.logger,
        register: (app) => slackApp!.register(app),
        onConnectError: () => metrics.slackApiErrors.inc({ method: 'auth.test', retriable: 'true' }),
      })
    : undefined;
  slackApp?.start();
  void slack?.connect();
  return { ...(slackApp ? { slackApp } : {}), ...(pageWorker ? { pageWorker } : {}), ...(slack ? { slack } : {}) };
}

/**
 * `/readyz` (the store answers, Slack is connected, not shutting down) and the HTTP endpoints: Slack's events, the
 * GitHub webhook when GITHUB_WEBHOOK_SECRET is set (it signs every delivery, never logged), change events.
 */
function openEndpoints(
  { config, logger, store }: AppContext,
  { mounts, setReady }: ServeSockets,
  options: ServeOptions,
  parts: {
    stopping: () => boolean;
    scheduler: Scheduler<CheckOutcome>;
    slack?: SlackRuntime;
    changeEvents?: { mounts: ServeSockets['mounts'] };
  },
) {
  const { slack, stopping } = parts;
  const secret = environmentValue(options.env, 'GITHUB_WEBHOOK_SECRET');
  const webhook = secret
    ? createGithubWebhookListener({
        secret,
        stacks: () => config.stacks,
        requestCheck: (name) => parts.scheduler.request(name, 'webhook'),
        logger,
      })
    : undefined;
  const storeHealth = watchStoreHealth(store, {
    ...(options.storeHealthMs ? { intervalMs: options.storeHealthMs } : {}),
    onChange: (ok, reason) =>
      ok ? logger.info('the store answers again') : logger.error({ reason }, 'the store does not answer: not ready'),
  });
  setReady(() => {
    if (stopping()) return { ok: false as const, reason: 'shutting down' };
    const stored = storeHealth.current();
    if (!stored.ok) return stored;
    if (slack && !slack.isReady())
      return { ok: false as const, reason: 'slack: not connected yet (auth.test is retried)' };
    return { ok: true as const };
  });
  if (slack?.listener)
    mounts.push({ path: '/slack/events', listener: slack.listener, available: () => slack.isReady() });
  if (webhook) mounts.push({ path: GITHUB_WEBHOOK_PATH, listener: webhook, available: () => !stopping() });
  mounts.push(...(parts.changeEvents?.mounts ?? []));
  return storeHealth;
}

/** Stops what serve started: no new work first, then the work under way, then delivery and the ports. */
async function stopServing(s: Serving, reason: string): Promise<void> {
  const { logger, config } = s.context;
  logger.info({ reason }, `stopping: ${reason}`);
  clearInterval(s.deadRunsSweep);
  await s.retention.stop();
  await s.rediscovery?.stop();
  // No new check is asked for; the checks still running keep their CloudTrail lookups until they end.
  await s.changeEvents?.stopIntake();
  // Applies and checks first: they may still have messages to send through the outbox.
  const { aborted, cancelled } = await s.scheduler.stop(config.defaults.shutdownTimeout);
  logger.info({ aborted, cancelled }, 'scheduler stopped');
  s.poolWatch?.stop();
  await s.agentPlane?.stop();
  await s.changeEvents?.stop();
  s.pager?.stop();
  s.storeHealth.stop();
  await s.pageWorker?.stop();
  await s.slackApp?.stop();
  await s.jobs.idle();
  await s.slack?.stop();
  await s.ports.health.close();
  await s.ports.metricsServer?.close();
  await s.lease?.stop();
  await s.context.close();
  logger.info({ reason }, `stopped: ${reason}`);
}

interface Runners {
  scheduler: Scheduler<CheckOutcome>;
  apply(run: Run, actor: string): Promise<ApplyOutcome | undefined>;
  requestCheck(stack: string): void;
  /** Queues a check whose outcome nobody waits for (a change event's): resolves once it is queued. */
  queueCheck(stack: string, trigger: RunTrigger): Promise<unknown>;
}

/**
 * The scheduler runs checks, an apply waits for the stack's turn in it; their terraform runs in this
 * process, or with the agent API on a worker of the stack's pool.
 */
function localRunners(
  context: AppContext,
  deps: AppContext['deps'] & Pick<SourceDeps, 'git'> & { github?: GitHubClient },
  jobs: Jobs,
  leading: () => boolean,
  metrics: ServeSockets['metrics'],
  /** With the agent API: how many checks wait for workers at once (`runners.agent.concurrency`). */
  concurrency = context.config.defaults.concurrency,
): Runners {
  const { config, logger } = context;
  const scheduler = createScheduler<CheckOutcome>({
    stacks: config.stacks,
    concurrency,
    jitterMs: config.defaults.jitter,
    logger,
    active: leading,
    check: async (stack, trigger, signal) => {
      // Another replica on the same store may be checking or applying the stack: this check waits its turn.
      await waitForStackLock(deps, stack.name, deps.timeouts.plan, signal);
      const started = performance.now();
      const outcome = await checkStackFromSource(deps, stack, { trigger, signal });
      metrics.planDuration.observe(
        { stack: stack.name, outcome: outcome.status },
        (performance.now() - started) / 1000,
      );
      metrics.runsByOutcome.inc({ outcome: outcome.status });
      jobs.run('auto-apply', () => autoApplyAfterCheck(applies, outcome, apply));
      return outcome;
    },
  });
  const requestCheck = (name: string): void => void scheduler.request(name, 'manual').catch(() => undefined);
  // The one apply use case, for a click, an automatic mode and a restart alike.
  const applies: ApplyDeps = {
    ...deps,
    requestCheck,
    exclusive: (name, work) => scheduler.exclusive(name, work),
    // Another replica may be checking or applying the stack: the apply waits its turn, as a check does,
    // rather than fail on its lock (an approved run is applied after the other, once).
    applyLockWaitMs: deps.timeouts.apply + deps.timeouts.plan,
    stack: context.stack,
  };
  const apply = (run: Run, actor: string) => applyApprovedRun(applies, run, actor);
  // In this process the check runs in the scheduler, which a request only joins: nothing polls for it.
  const queueCheck = (name: string, trigger: RunTrigger) => scheduler.request(name, trigger);
  return { scheduler, apply, requestCheck, queueCheck };
}
