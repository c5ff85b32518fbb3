import { refuseHeldVariables } from './held-variables.js';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentRefusedError, createAgentClient } from '../adapters/agent/agent-client.js';
import type { DriftgateConfig } from '../config/schema.js';
import { ConfigError, errorMessage } from '../domain/errors.js';
import { metricsAddressFrom } from '../http/metrics-address.js';
import type { Logger } from '../logging/logger.js';
import type { HttpServer } from '../http/server.js';
import type { ClaimedJob, ControlPlane } from '../ports/control-plane.js';
import { type AgentJobDeps, workAgentJob } from '../services/pools/work-agent-job.js';
import { ownCloudTrail } from './change-events.js';
import { createGitSources } from '../adapters/git/git-sources.js';
import { sandboxedCheckouts } from '../adapters/git/sandboxed-checkouts.js';
import { buildTerraformRunner, ownSecretNames, processBasics, runAsSandbox, sharedTerraformDir } from './context.js';
import { stacksFoundAgain } from './rediscovery.js';
import { listen } from './serve-sockets.js';
import type { WorkerOptions } from './worker-options.js';
import { environmentValue } from '../config/environment.js';

/** What a worker on the agent API is given: the control plane's address and its pool's token. */
export const CONTROL_PLANE_URL_ENV = 'DRIFTGATE_CONTROL_PLANE_URL';
export const POOL_TOKEN_ENV = 'DRIFTGATE_POOL_TOKEN';

/** How long a claim waits for a job at the control plane before asking again. */
const CLAIM_WAIT_SECONDS = 20;

export interface RunningAgentWorker {
  health: HttpServer;
  /** Resolves when the worker ended by itself: its token was refused (revoked, or another protocol). */
  ended: Promise<Error>;
  /** Lets running jobs finish (`defaults.shutdownTimeout`), then leaves; `reason` is logged at both ends. */
  stop(reason?: string): Promise<void>;
}

/** A worker on the agent API is started with one and not the other: which one this environment asks for. */
export function usesAgentApi(env: Record<string, string | undefined>): boolean {
  return Boolean(environmentValue(env, CONTROL_PLANE_URL_ENV));
}

/**
 * Why a worker without DRIFTGATE_CONTROL_PLANE_URL is refused, and what it needs now: direct workers (the
 * shared store and bucket in every worker's hands) are gone. `driftgate worker` and `doctor --pool` say it alike.
 */
export function noControlPlaneUrl(pool: string): { problem: string; fix: string } {
  return {
    problem: `${CONTROL_PLANE_URL_ENV} is not set: a worker takes its pool's jobs from the control plane's agent API`,
    fix: `Set ${CONTROL_PLANE_URL_ENV} (e.g. https://driftgate-agent:3001) and ${POOL_TOKEN_ENV} (driftgate pool token create ${pool}, on the control plane), and remove DATABASE_URL and the bucket's keys: see deploy/README.md "From direct workers"`,
  };
}

/**
 * What a worker must never hold, named: the variables the control plane's sections read (the store's
 * URL, the bucket's keys, the bot's secrets), and driftgate's own secrets. A module run by this worker
 * could read any of them from its environment, so the worker refuses to start rather than warn.
 */
export function forbiddenVariablesHeld(config: DriftgateConfig, env: Record<string, string | undefined>): string[] {
  const names = new Set([...(config.controlPlaneVariables ?? []), ...ownSecretNames(config)]);
  names.delete(POOL_TOKEN_ENV);
  // A stack's Git token reads the code the worker plans (give it a read-only one): the worker needs it.
  for (const stack of config.stacks) if (stack.git?.tokenEnv) names.delete(stack.git.tokenEnv);
  return [...names].filter((name) => env[name]).sort();
}

/**
 * `driftgate worker --pool NAME` with DRIFTGATE_CONTROL_PLANE_URL: takes its pool's jobs from the control
 * plane's agent API with its pool token, runs terraform with the pool's cloud credentials (this process's
 * environment), and answers each job there. It holds no store, no bucket, no bot secret.
 */
export async function startAgentWorker(
  config: DriftgateConfig,
  options: WorkerOptions & { controlPlane?: ControlPlane },
): Promise<RunningAgentWorker> {
  const { env } = options;
  const held = forbiddenVariablesHeld(config, env);
  refuseHeldVariables(
    held,
    "a worker on the agent API must not hold the control plane's secrets: remove it from this worker's environment",
    config.file,
  );
  const { url, token } = controlPlaneAddress(env);
  const concurrency = options.concurrency ?? config.defaults.concurrency;
  const { workDir, secrets, logger } = await processBasics(config, options);
  const controlPlane = options.controlPlane ?? createAgentClient({ url, token });
  const ports = await listen(options, metricsAddressFrom(env));
  try {
    const identity = await reach(controlPlane, logger, url, options.stopAsked);
    if (!identity) {
      // Asked to stop before the control plane ever answered: nothing was taken, nothing to hand back.
      const reason = stopReason(options.stopAsked);
      logger.info({ reason }, `stopped: ${reason}, before the control plane at ${url} answered`);
      await ports.close();
      return { health: ports.health, ended: new Promise<Error>(() => undefined), stop: async () => undefined };
    }
    if (identity.pool !== options.pool)
      throw new ConfigError([
        {
          path: `environment ${POOL_TOKEN_ENV}`,
          message: `the token is pool ${identity.pool}'s, and this worker was started for pool ${options.pool} (--pool)`,
        },
      ]);
    const deps = await agentJobDeps(config, options, { controlPlane, concurrency, workDir, secrets, logger });
    const loop = takeJobs(deps, concurrency, logger);
    const heartbeat = startHeartbeat(controlPlane, { concurrency, running: loop.running }, logger);
    let stopping = false;
    ports.setReady(() =>
      stopping
        ? { ok: false, reason: 'shutting down' }
        : loop.reachable()
          ? { ok: true }
          : { ok: false, reason: `the control plane at ${url} does not answer` },
    );
    logger.info(
      { pool: options.pool, concurrency, tokenId: identity.tokenId, port: ports.health.port },
      'driftgate worker taking jobs from the agent API',
    );
    return {
      health: ports.health,
      ended: loop.ended,
      async stop(reason = 'asked to stop') {
        if (stopping) return;
        stopping = true;
        logger.info({ reason, running: loop.running() }, `stopping: ${reason}`);
        await loop.stop(config.defaults.shutdownTimeout);
        await heartbeat.stop();
        await ports.close();
        logger.info({ reason }, `stopped: ${reason}`);
      },
    };
  } catch (err) {
    await ports.close();
    throw err;
  }
}

/**
 * The control plane answers and takes this token; retried with backoff while it cannot be reached.
 * Undefined when a stop was asked meanwhile.
 */
async function reach(controlPlane: ControlPlane, logger: Logger, url: string, stopAsked?: AbortSignal) {
  for (let attempt = 0; !stopAsked?.aborted; attempt++) {
    try {
      return await controlPlane.whoami(stopAsked);
    } catch (err) {
      if (err instanceof AgentRefusedError) throw err;
      if (stopAsked?.aborted) break;
      const waitMs = Math.min(30_000, 500 * 2 ** attempt);
      logger.warn({ url, err: errorMessage(err), retryInMs: waitMs }, 'cannot reach the control plane; retrying');
      await sleep(waitMs, undefined, stopAsked ? { signal: stopAsked } : {}).catch(() => undefined);
    }
  }
  return undefined;
}

/** What the stop was asked with (`SIGTERM received`), for the log. */
function stopReason(signal: AbortSignal | undefined): string {
  return typeof signal?.reason === 'string' ? signal.reason : 'asked to stop';
}

/**
 * `concurrency` loops, each claiming a job, working it while a heartbeat extends its lease, and claiming
 * the next. A lease the control plane no longer grants aborts its terraform; a refused token ends them all.
 */
function takeJobs(deps: AgentJobDeps, concurrency: number, logger: Logger) {
  const { controlPlane } = deps;
  const stopClaims = new AbortController();
  const running = new Set<{ abort: AbortController; done: Promise<void> }>();
  let lastOk = true;
  let resolveEnded: (err: Error) => void = () => undefined;
  const ended = new Promise<Error>((resolve) => {
    resolveEnded = resolve;
  });

  const work = (claimed: ClaimedJob) => {
    const abort = new AbortController();
    const everyMs = Math.max(1_000, (claimed.leaseSeconds * 1000) / 3);
    let heldUntil = Date.now() + claimed.leaseSeconds * 1000;
    const beat = setInterval(() => {
      controlPlane
        .extend(claimed.job.id, claimed.lease)
        .then((ok) => {
          if (ok) heldUntil = Date.now() + claimed.leaseSeconds * 1000;
          else {
            logger.warn({ jobId: claimed.job.id }, 'the control plane took the job back (lease over): stopping it');
            abort.abort();
          }
        })
        .catch((err: unknown) => {
          logger.warn({ jobId: claimed.job.id, err: errorMessage(err) }, 'extending the lease failed');
          // Past its lease the job is another worker's: terraform stops rather than race it.
          if (Date.now() > heldUntil) abort.abort();
        });
    }, everyMs);
    const done = workAgentJob(deps, claimed, abort.signal).finally(() => clearInterval(beat));
    const entry = { abort, done };
    running.add(entry);
    return done.finally(() => running.delete(entry));
  };

  const loops = Array.from({ length: concurrency }, async () => {
    let failures = 0;
    while (!stopClaims.signal.aborted) {
      try {
        const claimed = await controlPlane.claim(CLAIM_WAIT_SECONDS, stopClaims.signal);
        lastOk = true;
        failures = 0;
        if (claimed) await work(claimed);
      } catch (err) {
        if (stopClaims.signal.aborted) break;
        if (err instanceof AgentRefusedError) {
          logger.error({ err: err.message }, 'the control plane refused this worker; stopping');
          stopClaims.abort();
          resolveEnded(err);
          break;
        }
        lastOk = false;
        const waitMs = Math.min(30_000, 500 * 2 ** failures++);
        logger.warn({ err: errorMessage(err), retryInMs: waitMs }, 'claiming a job failed; retrying');
        await sleep(waitMs, undefined, { signal: stopClaims.signal }).catch(() => undefined);
      }
    }
  });

  return {
    ended,
    reachable: () => lastOk,
    running: () => running.size,
    async stop(timeoutMs: number) {
      stopClaims.abort();
      const jobs = [...running];
      const timer = setTimeout(() => {
        for (const job of jobs) job.abort.abort();
      }, timeoutMs);
      await Promise.allSettled(jobs.map((j) => j.done));
      clearTimeout(timer);
      await Promise.allSettled(loops);
    },
  };
}

/**
 * This worker's line in the control plane's registry, renewed every 10 s (a third of the default
 * `workerStaleAfter`) with the jobs it runs; a stopping worker leaves, so it is not counted.
 */
function startHeartbeat(
  controlPlane: ControlPlane,
  worker: { concurrency: number; running: () => number },
  logger: Logger,
  everyMs = 10_000,
) {
  const beat = {
    id: `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`,
    host: hostname(),
    pid: process.pid,
    concurrency: worker.concurrency,
    startedAt: Date.now(),
  };
  const send = (leaving = false) =>
    controlPlane
      .heartbeat({ ...beat, running: worker.running(), ...(leaving ? { leaving } : {}) })
      .catch((err: unknown) => logger.warn({ err: errorMessage(err) }, 'worker heartbeat failed (retried)'));
  void send();
  const timer = setInterval(() => void send(), everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await send(true);
    },
  };
}

/** The control plane's agent API and the pool token this worker presents, both from the environment. */
function controlPlaneAddress(env: Record<string, string | undefined>): { url: string; token: string } {
  const url = environmentValue(env, CONTROL_PLANE_URL_ENV);
  const token = environmentValue(env, POOL_TOKEN_ENV);
  if (url && token) return { url, token };
  throw new ConfigError([
    {
      path: `environment ${url ? POOL_TOKEN_ENV : CONTROL_PLANE_URL_ENV}`,
      message: url
        ? 'the pool token this worker presents (driftgate pool token create POOL, on the control plane)'
        : "the control plane's agent API, e.g. https://driftgate-agent:3001",
    },
  ]);
}

/**
 * What a job runs with on this worker: terraform (sandboxed as configured), Git checkouts, the stacks of
 * the config, and CloudTrail asked with this pool's credentials when the control plane asks who changed
 * a stack's drift.
 */
async function agentJobDeps(
  config: DriftgateConfig,
  options: WorkerOptions,
  basics: Pick<AgentJobDeps, 'controlPlane' | 'workDir' | 'secrets'> & {
    logger: Awaited<ReturnType<typeof processBasics>>['logger'];
    concurrency: number;
  },
): Promise<AgentJobDeps> {
  const { env } = options;
  const { secrets, logger, concurrency } = basics;
  const byName = new Map(config.stacks.map((s) => [s.name, s]));
  // With runAs or a terraform container, each job's checkout is copied where it runs; the clone stays here.
  const shared = await sharedTerraformDir(config);
  const runAs = await runAsSandbox(config, { logger });
  const sandbox = shared ?? runAs;
  const git = createGitSources({ dataDir: config.dataDir, env, logger });
  const deps: AgentJobDeps = {
    controlPlane: basics.controlPlane,
    terraform: await buildTerraformRunner(config, {
      env,
      secrets,
      logger,
      concurrency,
      ...(shared ? { shared } : {}),
      ...(runAs ? { runAs } : {}),
    }),
    git: sandbox ? sandboxedCheckouts(git, sandbox) : git,
    stack:
      config.discoveredAt && options.rediscover
        ? stacksFoundAgain(config, { reload: options.rediscover, git, secrets, logger })
        : (name) => byName.get(name),
    pool: options.pool,
    secrets,
    logger,
    workDir: basics.workDir,
  };
  const history = ownCloudTrail(config.changeEvents, env, options.pool);
  if (history) deps.history = history;
  else if (config.changeEvents?.cloudTrail.lookup)
    logger.warn(
      'no region to ask CloudTrail in (changeEvents.cloudTrail.region, or AWS_REGION here): drift this pool finds is attributed from change events only',
    );
  return deps;
}
