import {
  createCloudTrailClient,
  createCloudTrailLookup,
  createLookupLimiter,
} from '../adapters/aws/cloudtrail-lookup.js';
import { createSqsClient, runSqsChangeEvents } from '../adapters/aws/sqs-change-events.js';
import { type ChangeEventsConfig, sqsQueueRegion } from '../config/schema.js';
import { stateObjectOf } from '../config/shared-state.js';
import { createClassifier } from '../domain/change-events/classify.js';
import type { DebounceTimer } from '../domain/change-events/debounce.js';
import { type IntakeOutcome, ignoredReason } from '../domain/change-events/intake.js';
import { ResourceIndex } from '../domain/change-events/resource-index.js';
import type { ChangeEvent } from '../domain/change-events/schema.js';
import { ConfigError, errorMessage } from '../domain/errors.js';
import { AWS_EVENTS_PATH, createAwsEventsListener } from '../http/aws-events/listener.js';
import type { HttpMount } from '../http/server.js';
import { sampledLog } from '../logging/sampled.js';
import type { Metrics } from '../metrics/registry.js';
import type { RunStore } from '../ports/store.js';
import { createDriftAttributor } from '../services/change-events/attribute-drift.js';
import type { CheckChangeEvents, ServiceDeps } from '../services/runtime/deps.js';
import type { AppContext } from './context.js';
import type { ChangeHistory } from '../ports/change-history.js';
import { indexUnplannedStacks } from '../services/change-events/index-unplanned-stacks.js';
import {
  createResourceIndexKeeper,
  type ResourceIndexKeeper,
} from '../services/change-events/resource-index-keeper.js';
import { createUnmatchedChangeRecorder } from '../services/change-events/unmatched-changes.js';
import { createCheckChangeEvents } from '../services/change-events/check-hooks.js';
import { followStoreIndex } from '../services/change-events/index-follower.js';
import { startChangeEventIntake } from '../services/change-events/intake.js';
import { environmentValue } from '../config/environment.js';

/**
 * Change events in `serve`: the push endpoint (`POST /events/aws`) and the SQS poller
 * feed one intake (classify, match against the resource index, debounce), whose due requests keep the
 * matched changes in the store and queue an `event` check of the stack. Whatever runs checks (serve with
 * local runners, a worker of the stack's pool) gets the check hooks (`checks`): its plans keep the index
 * current in the store, and its drift is attributed from the waiting changes or CloudTrail, with its own
 * cloud credentials. The intake's index follows the store, so it sees what any process's plans indexed.
 */

export interface ChangeEventsOptions {
  config: ChangeEventsConfig;
  env: Record<string, string | undefined>;
  deps: Pick<ServiceDeps, 'logger' | 'now'> & { store: RunStore };
  metrics: Pick<Metrics, 'changeEvents' | 'changeEventsIndexed'>;
  /** Queues an event-triggered check of the stack. */
  requestCheck(stack: string): Promise<unknown>;
  /**
   * The config's stacks now (serve's re-discovery may change them): what the store indexed for a stack
   * since removed from it matches nothing.
   */
  stacks(): ReadonlySet<string>;
  /** The debounce's timer; default the real one. */
  timer?: DebounceTimer;
  /** How often the intake reads what the store's index gained (other processes' plans); default 10 s. */
  indexRefreshMs?: number;
}

export interface RunningChangeEvents {
  mounts: HttpMount[];
  stop(): Promise<void>;
}

/** Change events in serve: the receivers and the intake stop before the checks, the check hooks after them. */
export interface ServeChangeEvents extends RunningChangeEvents {
  /**
   * The receivers and the intake only: before the scheduler stops, so no new check is asked for. The check
   * hooks (the CloudTrail client) stay for the checks still running; `stop` releases them once those ended.
   */
  stopIntake(): Promise<void>;
}

export interface RunningCheckHooks {
  checks: CheckChangeEvents;
  /** The index the checks keep: the intake of the same process matches against it. */
  index: ResourceIndex;
  /** The newest save the index was loaded with: the intake reads on from it, not the whole index again. */
  loadedUpTo: Date | undefined;
  /** What keeps `index`: serve indexes the stacks never planned with it at start. */
  keeper: ResourceIndexKeeper;
  stop(): void;
}

const realTimer: DebounceTimer = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** The SDK's clients get the credentials of driftgate's environment (as given, never process.env). */
export function awsCredentials(env: Record<string, string | undefined>) {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN } = env;
  if (!accessKeyId || !secretAccessKey) return {};
  return {
    credentials: { accessKeyId, secretAccessKey, ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}) },
  };
}

/** Where `serve` asks CloudTrail: `cloudTrail.region`, else the SQS queue's. */
export function cloudTrailRegion(config: ChangeEventsConfig): string | undefined {
  return (
    config.cloudTrail.region ?? (config.sqs ? (config.sqs.region ?? sqsQueueRegion(config.sqs.queueUrl)) : undefined)
  );
}

/**
 * Where a worker asks CloudTrail: `cloudTrail.region`, else its environment's region (its pool's). Never
 * the control plane's queue's: a pool's account may live in another region.
 */
export function workerCloudTrailRegion(
  config: ChangeEventsConfig,
  env: Record<string, string | undefined>,
): string | undefined {
  return (
    config.cloudTrail.region ?? (environmentValue(env, 'AWS_REGION') || environmentValue(env, 'AWS_DEFAULT_REGION'))
  );
}

/**
 * CloudTrail as this process's environment reaches it (a worker's: its pool's credentials and region),
 * when lookups are on and a region is known; undefined otherwise.
 */
export function ownCloudTrail(
  config: ChangeEventsConfig | undefined,
  env: Record<string, string | undefined>,
  account: string,
): ChangeHistory | undefined {
  const region = config ? workerCloudTrailRegion(config, env) : undefined;
  if (!config?.cloudTrail.lookup || !region) return undefined;
  const client = createCloudTrailClient({ region, env, ...awsCredentials(env) });
  return createCloudTrailLookup({ client, account, region, limiter: createLookupLimiter() });
}

/**
 * The push endpoint's shared secret is all that stands between the internet and a check (and what the alert
 * says of who changed what): one short enough to guess is refused, as `openssl rand -hex 32` is easy.
 */
export const PUSH_SECRET_MIN_LENGTH = 32;

function pushSecret(config: ChangeEventsConfig, env: Record<string, string | undefined>): string | undefined {
  if (!config.secretEnv) return undefined;
  const secret = env[config.secretEnv];
  const refuse = (message: string) => new ConfigError([{ path: 'changeEvents.secretEnv', message }]);
  if (!secret) throw refuse(`${config.secretEnv} is not set in the environment`);
  if (secret.length < PUSH_SECRET_MIN_LENGTH)
    throw refuse(
      `${config.secretEnv} holds ${secret.length} characters, the push secret needs at least ${PUSH_SECRET_MIN_LENGTH} (openssl rand -hex 32)`,
    );
  return secret;
}

/**
 * For serve: nothing without `changeEvents` in the config; with it, the receivers and the intake, and the
 * check hooks handed to its services (serve runs every check, their terraform here or on a worker).
 */
export async function startChangeEvents(
  context: Pick<AppContext, 'config' | 'deps'>,
  metrics: Pick<Metrics, 'changeEvents' | 'changeEventsIndexed'>,
  env: Record<string, string | undefined>,
  requestCheck: (stack: string) => Promise<unknown>,
  options: {
    indexRefreshMs?: number;
    /** With the agent API: CloudTrail asked by each stack's pool (its workers' credentials). */
    historyFor?: (stack: string) => ChangeHistory | undefined;
  },
): Promise<ServeChangeEvents | undefined> {
  const config = context.config.changeEvents;
  if (!config) return undefined;
  let names = { of: context.config.stacks, set: new Set(context.config.stacks.map((s) => s.name)) };
  const stacks = () => {
    if (names.of !== context.config.stacks)
      names = { of: context.config.stacks, set: new Set(context.config.stacks.map((s) => s.name)) };
    return names.set;
  };
  const hooks = await startCheckHooks(config, env, context.deps, {
    account: 'driftgate',
    region: cloudTrailRegion(config),
    ...(options.historyFor ? { historyFor: options.historyFor } : {}),
  });
  context.deps.changeEvents = hooks.checks;
  try {
    const receivers = await startChangeEventsWith({
      config,
      env,
      deps: context.deps,
      metrics,
      requestCheck,
      stacks,
      loaded: { index: hooks.index, upTo: hooks.loadedUpTo },
      ...(options.indexRefreshMs ? { indexRefreshMs: options.indexRefreshMs } : {}),
    });
    // Meanwhile the stacks never planned are indexed from their state: their events match from now on.
    const unplanned = new AbortController();
    const indexing = indexUnplannedStacks(
      { logger: context.deps.logger, keeper: hooks.keeper },
      context.config.stacks,
      {
        concurrency: Math.min(context.config.defaults.concurrency, 4),
        signal: unplanned.signal,
      },
    );
    const stopIntake = async () => {
      unplanned.abort();
      await indexing;
      await receivers.stop();
    };
    return {
      mounts: receivers.mounts,
      stopIntake,
      async stop() {
        await stopIntake();
        hooks.stop();
      },
    };
  } catch (err) {
    hooks.stop();
    throw err;
  }
}

/**
 * What a process that runs checks needs from change events: the index kept current as its plans run
 * (in the store, for every process), and drift attributed, asking CloudTrail in `cloudTrail.region` with
 * this process's credentials (`account` names them in the rate limit's key: a worker's pool). Without a
 * region, drift is attributed from change events only.
 */
export async function startCheckHooks(
  config: ChangeEventsConfig,
  env: Record<string, string | undefined>,
  deps: Pick<ServiceDeps, 'store' | 'terraform' | 'logger' | 'now'>,
  cloudTrail: {
    account: string;
    region: string | undefined;
    historyFor?: (stack: string) => ChangeHistory | undefined;
  },
): Promise<RunningCheckHooks> {
  const index = new ResourceIndex();
  const keeper = createResourceIndexKeeper({ ...deps, stateObjectOf }, index);
  const loadedUpTo = await keeper.load();
  const classify = createClassifier({ ownIdentities: config.ownIdentities, automation: config.automation });
  const { account, region } = cloudTrail;
  // With the agent API, each stack's pool asks its own CloudTrail: this process builds no client.
  const historyFor = config.cloudTrail.lookup ? cloudTrail.historyFor : undefined;
  const client =
    config.cloudTrail.lookup && region && !historyFor
      ? createCloudTrailClient({ region, env, ...awsCredentials(env) })
      : undefined;
  const attribute = createDriftAttributor({
    ...deps,
    index,
    classify,
    ...(historyFor ? { historyFor } : {}),
    ...(client
      ? { history: createCloudTrailLookup({ client, account, region: region!, limiter: createLookupLimiter() }) }
      : {}),
  });
  return {
    index,
    loadedUpTo,
    keeper,
    checks: createCheckChangeEvents(deps, keeper, attribute),
    stop() {
      client?.destroy();
    },
  };
}

/**
 * The receivers and the intake. With `loaded` (this process runs the checks that keep that index, just read
 * whole from the store, up to the save `upTo`) it matches against that; without, against its own copy
 * filled from the store. Either way the copy is refreshed from the store every `indexRefreshMs`: replicas
 * and workers index the stacks they check.
 */
export async function startChangeEventsWith(
  options: ChangeEventsOptions & { loaded?: { index: ResourceIndex; upTo: Date | undefined } },
): Promise<RunningChangeEvents> {
  const { config, env, deps, metrics } = options;
  const logger = deps.logger;
  const secret = pushSecret(config, env);
  const follower = followStoreIndex(deps, options.loaded?.index ?? new ResourceIndex(), {
    keep: (stack) => options.stacks().has(stack),
    everyMs: options.indexRefreshMs ?? 10_000,
    refreshed: (size) => metrics.changeEventsIndexed.set(size),
  });
  // The keeper's load was a full read of the same index: one read of it at start is enough.
  if (options.loaded) follower.readUpTo(options.loaded.upTo);
  else await follower.refresh();
  const unmatched = createUnmatchedChangeRecorder(deps);
  const intake = startChangeEventIntake(deps, {
    windowMs: config.debounce,
    index: follower.index,
    classify: createClassifier({ ownIdentities: config.ownIdentities, automation: config.automation }),
    requestCheck: options.requestCheck,
    stacks: options.stacks,
    timer: options.timer ?? realTimer,
    counted: intakeCounter(deps, metrics, unmatched),
  });
  let stopped = false;
  // Both receivers refuse an event by its time alike, and count it so.
  const age = { maxAgeMs: config.maxEventAge, now: deps.now };
  const refused = (reason: 'too_old' | 'in_future') => metrics.changeEvents.inc({ outcome: 'refused', reason });
  const take = (event: ChangeEvent) => intake.take(event);
  const mounts: HttpMount[] = secret
    ? [
        {
          path: AWS_EVENTS_PATH,
          listener: createAwsEventsListener({ secret, secretHeader: config.secretHeader, take, logger, age, refused }),
          available: () => !stopped,
        },
      ]
    : [];
  const sqs = config.sqs ? startSqsPoller(config.sqs, env, { logger, take, age, refused }) : undefined;
  follower.start();
  logger.info({ push: Boolean(secret), sqs: Boolean(sqs), indexed: follower.index.size }, 'change events on');

  return {
    mounts,
    async stop() {
      if (stopped) return;
      stopped = true;
      // The receivers first (an SQS batch in hand is still taken), then every open window is stored in the
      // store for the stack's next check: a deploy must not lose the changes of the last `debounce`.
      await intake.stop(async () => sqs?.stop());
      await follower.stop();
      await unmatched.flush();
      sqs?.destroy();
      logger.info({}, 'change events off: no more checks asked for, open windows stored');
    },
  };
}

/** Counted each; logged a line a minute at most, so that a burst of thousands is not thousands of lines. */
function intakeCounter(
  deps: Pick<ServiceDeps, 'logger' | 'now'>,
  metrics: Pick<Metrics, 'changeEvents'>,
  unmatched: ReturnType<typeof createUnmatchedChangeRecorder>,
): (outcome: IntakeOutcome) => void {
  const logUnmatched = sampledLog(60_000, deps.now);
  const logOverCapacity = sampledLog(60_000, deps.now);
  return (outcome) => {
    if (outcome.kind === 'ignored') {
      metrics.changeEvents.inc({ outcome: 'ignored', reason: ignoredReason(outcome.classification) });
    } else if (outcome.kind === 'unmatched') {
      metrics.changeEvents.inc({ outcome: 'unmatched', reason: '' });
      unmatched.add(outcome.change);
      const { eventId, eventName, eventSource: source } = outcome.change;
      logUnmatched((unsaid) =>
        deps.logger.info({ eventId, eventName, source, unsaid }, 'change event names no resource a stack manages'),
      );
    } else {
      for (const s of outcome.stacks) {
        metrics.changeEvents.inc({ outcome: 'matched', reason: s.result });
        if (s.result === 'over_capacity')
          logOverCapacity((unsaid) =>
            deps.logger.warn(
              { stack: s.stack, unsaid },
              'change events: too many stacks wait for their window; this change is counted, not checked (the sweep finds its drift)',
            ),
          );
      }
    }
  };
}

/** The SQS poller: SQS long-polled until `stop`, each message's event taken as the push endpoint takes one. */
function startSqsPoller(
  sqs: NonNullable<ChangeEventsConfig['sqs']>,
  env: Record<string, string | undefined>,
  poller: Pick<Parameters<typeof runSqsChangeEvents>[0], 'logger' | 'age' | 'refused'> & {
    take: (event: ChangeEvent) => Promise<void>;
  },
) {
  const controller = new AbortController();
  const client = createSqsClient({ region: sqs.region ?? sqsQueueRegion(sqs.queueUrl)!, env, ...awsCredentials(env) });
  const polling = runSqsChangeEvents({
    client,
    queueUrl: sqs.queueUrl,
    handle: poller.take,
    logger: poller.logger,
    signal: controller.signal,
    waitTimeSeconds: sqs.waitTime,
    age: poller.age,
    refused: poller.refused,
  }).catch((err: unknown) => {
    poller.logger.error({ err: errorMessage(err) }, 'change events: the SQS loop stopped');
    return undefined;
  });
  return {
    async stop() {
      controller.abort();
      await polling;
    },
    destroy: () => client.destroy(),
  };
}
