import { createGitSources } from '../adapters/git/git-sources.js';
import { workerPoolIssues } from '../config/runners.js';
import type { DriftgateConfig } from '../config/schema.js';
import { ConfigError, errorMessage } from '../domain/errors.js';
import type { Logger } from '../logging/logger.js';
import type { HttpServer } from '../http/server.js';
import { metricsAddressFrom } from '../http/metrics-address.js';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { openWorkerRegistry, storeOwnerVariable } from '../adapters/store/open-store.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { WorkerRegistry } from '../ports/worker-registry.js';
import { relayBus } from '../services/relay-bus.js';
import { terraformCodeChecks } from '../services/remediation-code-checks.js';
import { workPoolJob, type PoolJobDeps } from '../services/work-pool-job.js';
import { startCheckHooks, type RunningCheckHooks, workerCloudTrailRegion } from './change-events.js';
import { createAppContext, ownSecretNames, type AppContext } from './context.js';
import { openQueueFor } from './open-queue.js';
import { listen, type ListenOptions } from './serve-ports.js';
import { watchStoreHealth } from './store-health.js';

export interface WorkerOptions extends ListenOptions {
  env: Record<string, string | undefined>;
  pool: string;
  /** Jobs run at once; default `defaults.concurrency`. */
  concurrency?: number;
  now?: () => Date;
  logDestination?: NodeJS.WritableStream;
  log?: { format: 'json' | 'human'; level: string };
  /** How often it tells the registry it lives; default 10 s (a third of the default `workerStaleAfter`). */
  heartbeatMs?: number;
}

export interface RunningWorker {
  context: AppContext;
  health: HttpServer;
  /** Stops taking jobs; running ones get `defaults.shutdownTimeout`. */
  stop(): Promise<void>;
}

function refuse(config: DriftgateConfig, pool: string, env: Record<string, string | undefined>): void {
  const issues = workerPoolIssues(config, pool, '`driftgate worker` takes the jobs of');
  // The owner role could switch the audit's guard off: it stays with `driftgate migrate` and the control plane.
  const owner = storeOwnerVariable(config);
  if (owner && env[owner])
    issues.push({
      path: 'store.ownerUrlEnv',
      message: `this worker's environment holds ${owner}, the store owner role's URL: a worker never migrates the schema; remove it`,
    });
  if (issues.length) throw new ConfigError(issues, config.file);
}

/**
 * `driftgate worker --pool NAME`: takes its pool's check and apply jobs from the queue in Postgres, runs
 * terraform with the pool's cloud credentials (this process's environment), keeps saved plans in the
 * shared artifact store and runs in the shared store, and relays what happened to the control plane. It
 * holds none of the bot's secrets: Slack, GitHub and on-call are the control plane's.
 */
export async function startWorker(config: DriftgateConfig, options: WorkerOptions): Promise<RunningWorker> {
  refuse(config, options.pool, options.env);
  const concurrency = options.concurrency ?? config.defaults.concurrency;
  const ports = await listen(options, metricsAddressFrom(options.env));
  let context: AppContext | undefined;
  let queue: JobQueue | undefined;
  let registry: WorkerRegistry | undefined;
  let hooks: RunningCheckHooks | undefined;
  try {
    // Sized for this worker's terraform processes (GOMAXPROCS), not the control plane's setting.
    context = await createAppContext({ ...config, defaults: { ...config.defaults, concurrency } }, options);
    const { logger } = context;
    // Said at every start: with the store's credential, a module this worker runs can act in any pool.
    logger.warn(
      'this worker holds the shared store and bucket (direct workers): a module it runs could act in every pool; workers on the agent API hold only their pool token (README: "Workers on the agent API")',
    );
    const present = ownSecretNames(config).filter((name) => options.env[name]);
    if (present.length > 0)
      logger.warn(
        { variables: present },
        "this worker's environment holds the control plane's secrets; a worker needs none of them (terraform never gets them): remove them",
      );
    // Its checks keep the change events' index and attribute drift, asking CloudTrail with this pool's
    // credentials: the control plane needs no cloud access for it.
    const events = config.changeEvents;
    const region = events ? workerCloudTrailRegion(events, options.env) : undefined;
    if (events?.cloudTrail.lookup && !region)
      logger.warn(
        'no region to ask CloudTrail in (changeEvents.cloudTrail.region, or AWS_REGION here): drift this pool finds is attributed from change events only',
      );
    hooks = events
      ? await startCheckHooks(events, options.env, context.deps, { account: options.pool, region })
      : undefined;
    if (hooks) context.deps.changeEvents = hooks.checks;
    queue = await openQueueFor(config, logger, `driftgate-worker-${options.pool}`);
    const taken = queue;
    const bus = relayBus(
      (event) => taken.relay(event),
      (err, event) => logger.error({ err, event: event.type, stack: event.stack }, 'event handler failed'),
    );
    bus.onAny((event) => logger.info({ event: event.type, stack: event.stack, runId: event.run.id }, 'event'));
    const deps: PoolJobDeps = {
      ...context.deps,
      bus,
      git: createGitSources({ dataDir: config.dataDir, env: options.env, logger }),
      pool: options.pool,
      stack: context.stack,
      checks: terraformCodeChecks(context.deps.terraform, logger),
      // An expired plan asks for a fresh one: a check on this pool, where the stack is.
      requestCheck: (name) =>
        void taken
          .enqueue(options.pool, { kind: 'check', stack: name, trigger: 'manual' })
          .catch((err: unknown) => logger.warn({ err, stack: name }, 'queuing a fresh check failed')),
    };
    const storeHealth = watchStoreHealth(context.store, {
      onChange: (ok, reason) =>
        ok ? logger.info('the store answers again') : logger.error({ reason }, 'the store does not answer: not ready'),
    });
    let stopping = false;
    ports.setReady(() => (stopping ? { ok: false, reason: 'shutting down' } : storeHealth.current()));
    registry = await openWorkerRegistry(config);
    const heartbeat = startHeartbeat(registry, { pool: options.pool, concurrency }, logger, options.heartbeatMs);
    await queue.work(options.pool, ['check', 'apply', 'codify'], concurrency, (job) =>
      heartbeat.running(workPoolJob(deps, job)),
    );
    logger.info(
      { pool: options.pool, concurrency, id: heartbeat.id, port: ports.health.port },
      'driftgate worker taking jobs',
    );
    const started = context;
    const registered = registry;
    const checkHooks = hooks;
    return {
      context: started,
      health: ports.health,
      async stop() {
        if (stopping) return;
        stopping = true;
        await taken.stop(config.defaults.shutdownTimeout);
        await heartbeat.stop();
        await registered.close();
        checkHooks?.stop();
        storeHealth.stop();
        await ports.close();
        await started.close();
      },
    };
  } catch (err) {
    await queue?.stop(0).catch(() => undefined);
    await registry?.close().catch(() => undefined);
    hooks?.stop();
    await context?.close();
    await ports.close();
    throw err;
  }
}

/**
 * The worker's line in the registry, renewed every `everyMs` with the jobs it runs: what `/drift status`,
 * the App Home, `/metrics` and `driftgate workers` count as a live worker. A failed beat is retried at the
 * next; a stopping worker leaves, so it is not counted until it goes stale.
 */
function startHeartbeat(
  registry: WorkerRegistry,
  worker: { pool: string; concurrency: number },
  logger: Logger,
  everyMs = 10_000,
) {
  const id = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const startedAt = new Date();
  let running = 0;
  const beat = () =>
    registry
      .beat({
        id,
        pool: worker.pool,
        host: hostname(),
        pid: process.pid,
        concurrency: worker.concurrency,
        startedAt,
        running,
      })
      .catch((err: unknown) => logger.warn({ err: errorMessage(err) }, 'worker heartbeat failed (retried)'));
  void beat();
  const timer = setInterval(() => void beat(), everyMs);
  timer.unref();
  return {
    id,
    async running<T>(job: Promise<T>): Promise<T> {
      running++;
      try {
        return await job;
      } finally {
        running--;
      }
    },
    async stop() {
      clearInterval(timer);
      await registry.leave(id).catch(() => undefined);
    },
  };
}
