import {
  createCloudTrailClient,
  createCloudTrailLookup,
  createLookupLimiter,
} from '../adapters/aws/cloudtrail-lookup.js';
import { createSqsClient, runSqsChangeEvents } from '../adapters/aws/sqs-change-events.js';
import { type ChangeEventsConfig, sqsQueueRegion } from '../config/schema.js';
import { createClassifier } from '../domain/change-events/classify.js';
import { createCheckDebouncer, type DebounceTimer } from '../domain/change-events/debounce.js';
import {
  type IntakeOutcome,
  ignoredReason,
  type MatchedChange,
  takeChangeEvent,
} from '../domain/change-events/intake.js';
import { ResourceIndex } from '../domain/change-events/resource-index.js';
import type { ChangeEvent } from '../domain/change-events/schema.js';
import { ConfigError, errorMessage } from '../domain/errors.js';
import { AWS_EVENTS_PATH, createAwsEventsListener } from '../http/aws-events/listener.js';
import type { HttpMount } from '../http/server.js';
import { sampledLog } from '../logging/sampled.js';
import type { Metrics } from '../metrics/registry.js';
import type { RunStore } from '../ports/store.js';
import { createDriftAttributor } from '../services/attribute-drift.js';
import type { CheckChangeEvents, ServiceDeps } from '../services/deps.js';
import type { AppContext } from './context.js';
import type { ChangeHistory } from '../ports/change-history.js';
import { indexUnplannedStacks } from '../services/index-unplanned-stacks.js';
import { createResourceIndexKeeper, type ResourceIndexKeeper } from '../services/resource-index-keeper.js';
import { createUnmatchedChangeRecorder } from '../services/unmatched-changes.js';
import { environmentValue } from '../config/environment.js';

/**
 * Change events in `serve`: the push door (`POST /events/aws`) and the pull door (the SQS long poll)
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

/** Change events in serve: the doors and the intake stop before the checks, the check hooks after them. */
export interface ServeChangeEvents extends RunningChangeEvents {
  /**
   * The doors and the intake only: before the scheduler stops, so no new check is asked for. The check
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
 * The push door's shared secret is all that stands between the internet and a check (and what the alert
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
 * For serve: nothing without `changeEvents` in the config; with it, the doors and the intake, and the
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
    const doors = await startChangeEventsWith({
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
      await doors.stop();
    };
    return {
      mounts: doors.mounts,
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
  const keeper = createResourceIndexKeeper(deps, index);
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
    checks: {
      markWaiting: (stack) =>
        deps.store.markPendingChanges(stack.name).catch((err: unknown) => {
          deps.logger.warn({ stack: stack.name, err: errorMessage(err) }, 'waiting changes not marked');
          return 0;
        }),
      indexPlan: (stack, plan) => keeper.fromPlan(stack, plan),
      async cleanPlan(stack, signal) {
        await keeper.fromState(stack, signal);
      },
      attribute: (stack, drifted, options) => attribute(stack.name, drifted, options),
      async answered(stack, upTo) {
        if (upTo === 0) return;
        await deps.store
          .dropPendingChanges(stack.name, upTo)
          .catch((err: unknown) =>
            deps.logger.warn({ stack: stack.name, err: errorMessage(err) }, 'answered changes not cleared'),
          );
      },
    },
    stop() {
      client?.destroy();
    },
  };
}

/**
 * The doors and the intake. With `loaded` (this process runs the checks that keep that index, just read
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
  const index = follower.index;
  const classify = createClassifier({ ownIdentities: config.ownIdentities, automation: config.automation });
  const unmatched = createUnmatchedChangeRecorder(deps);
  let stopped = false;
  const waiting = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    waiting.add(work);
    void work.finally(() => waiting.delete(work));
  };
  const timer = options.timer ?? realTimer;
  /** The change of each open window already in the store (`keepOpening`): stack -> event id. */
  const keptAtOpen = new Map<string, string>();
  const debouncer = createCheckDebouncer<MatchedChange>({
    timer,
    windowMs: config.debounce,
    onDue: (request) => {
      logger.info(
        { stack: request.stack, resources: request.resources, events: request.coalesced + 1 },
        'change events: checking the stack',
      );
      // Kept before the check is queued, so whichever process runs it finds them. Stopping waits for the
      // write, not for the check (the runners stop those within the shutdown timeout). The window's first
      // change is there already, unless a check answered it meanwhile: it is not kept for a second one.
      const kept = keptAtOpen.get(request.stack);
      keptAtOpen.delete(request.stack);
      const changes = request.changes.filter((c) => c.eventId !== kept);
      const keep = deps.store
        .addPendingChanges(request.stack, changes)
        .catch((err: unknown) =>
          logger.warn(
            { stack: request.stack, err: errorMessage(err) },
            'change events: the changes were not kept; the check goes ahead without who',
          ),
        );
      track(keep);
      void keep.then(() => {
        // Stopped meanwhile: the kept changes wait for the stack's next check.
        if (stopped) return;
        options
          .requestCheck(request.stack)
          .catch((err: unknown) =>
            logger.warn({ stack: request.stack, err: errorMessage(err) }, 'change events: the check was not queued'),
          );
      });
    },
  });

  // Counted each; logged a line a minute at most, so that a burst of thousands is not thousands of lines.
  const logUnmatched = sampledLog(60_000, deps.now);
  const logOverCapacity = sampledLog(60_000, deps.now);
  const count = (outcome: IntakeOutcome) => {
    if (outcome.kind === 'ignored') {
      metrics.changeEvents.inc({ outcome: 'ignored', reason: ignoredReason(outcome.classification) });
    } else if (outcome.kind === 'unmatched') {
      metrics.changeEvents.inc({ outcome: 'unmatched', reason: '' });
      unmatched.add(outcome.change);
      const { eventId, eventName, eventSource: source } = outcome.change;
      logUnmatched((unsaid) =>
        logger.info({ eventId, eventName, source, unsaid }, 'change event names no resource a stack manages'),
      );
    } else {
      for (const s of outcome.stacks) {
        metrics.changeEvents.inc({ outcome: 'matched', reason: s.result });
        if (s.result === 'over_capacity')
          logOverCapacity((unsaid) =>
            logger.warn(
              { stack: s.stack, unsaid },
              'change events: too many stacks wait for their window; this change is counted, not checked (the sweep finds its drift)',
            ),
          );
      }
    }
  };
  // Each open window has a change in the store before its events are acknowledged (202, the SQS message
  // deleted): its first, or, when that write failed, the next one taken. A process killed within the
  // window leaves it there, and a later start checks its stack (`checkStranded`). The rest of a window is
  // kept when it closes: one write per window, not per event. A write that fails fails the event: the
  // push door answers 503 and SQS hands the message out again, so EventBridge or SQS sends it again.
  const keepOpening = async (stack: string, change: MatchedChange) => {
    await deps.store.addPendingChanges(stack, [change]).catch((err: unknown) => {
      logger.warn({ stack, err: errorMessage(err) }, 'change events: a window was not kept at its opening');
      throw err;
    });
    if (debouncer.pendingStacks().includes(stack)) keptAtOpen.set(stack, change.eventId);
  };
  const take = async (event: ChangeEvent) => {
    const outcome = takeChangeEvent({ classify, index, debouncer }, event);
    count(outcome);
    if (outcome.kind !== 'queued') return;
    const unkept = outcome.stacks.filter((s) => s.result !== 'over_capacity' && !keptAtOpen.has(s.stack));
    await Promise.all(unkept.map(({ stack }) => keepOpening(stack, outcome.change)));
  };

  // Changes kept before this start that still wait a window later: the process that took them died
  // before its check (or the check failed). Each such stack is checked once now.
  const startedAt = deps.now();
  const checkStranded = async () => {
    const stacks = await deps.store.listWaitingStacks(startedAt).catch((err: unknown) => {
      logger.warn(
        { err: errorMessage(err) },
        'change events: the changes waiting since before this start were not read',
      );
      return [];
    });
    for (const stack of stacks) {
      if (stopped || !options.stacks().has(stack)) continue;
      // Checked since by any process (a replica that started too, a schedule): not stranded.
      const [latest] = await deps.store.listRuns({ stack, limit: 1 }).catch(() => []);
      if (latest && latest.createdAt >= startedAt) continue;
      logger.info({ stack }, 'change events: checking a stack whose changes have waited since before this start');
      options
        .requestCheck(stack)
        .catch((err: unknown) =>
          logger.warn({ stack, err: errorMessage(err) }, 'change events: the check was not queued'),
        );
    }
  };
  // Replicas started together look at different times, so that one's check is seen by the others.
  const strandedAfter = config.debounce + Math.floor(Math.random() * (config.debounce / 2));
  const stranded = timer.setTimeout(() => track(checkStranded()), strandedAfter);

  // Both doors refuse an event by its time alike, and count it so.
  const age = { maxAgeMs: config.maxEventAge, now: deps.now };
  const refused = (reason: 'too_old' | 'in_future') => metrics.changeEvents.inc({ outcome: 'refused', reason });
  const mounts: HttpMount[] = secret
    ? [
        {
          path: AWS_EVENTS_PATH,
          listener: createAwsEventsListener({ secret, secretHeader: config.secretHeader, take, logger, age, refused }),
          available: () => !stopped,
        },
      ]
    : [];

  const sqs = config.sqs;
  const controller = new AbortController();
  const sqsClient = sqs
    ? createSqsClient({ region: sqs.region ?? sqsQueueRegion(sqs.queueUrl)!, env, ...awsCredentials(env) })
    : undefined;
  const polling =
    sqs && sqsClient
      ? runSqsChangeEvents({
          client: sqsClient,
          queueUrl: sqs.queueUrl,
          handle: async (event) => take(event),
          logger,
          signal: controller.signal,
          waitTimeSeconds: sqs.waitTime,
          age,
          refused,
        }).catch((err: unknown) => {
          logger.error({ err: errorMessage(err) }, 'change events: the SQS loop stopped');
          return undefined;
        })
      : undefined;
  follower.start();
  logger.info({ push: Boolean(secret), sqs: Boolean(sqs), indexed: index.size }, 'change events on');

  return {
    mounts,
    async stop() {
      if (stopped) return;
      stopped = true;
      // The doors first (an SQS batch in hand is still taken), then every open window is kept in the
      // store for the stack's next check: a deploy must not lose the changes of the last `debounce`.
      controller.abort();
      await polling;
      timer.clearTimeout(stranded);
      debouncer.flush();
      debouncer.stop();
      keptAtOpen.clear();
      await follower.stop();
      await Promise.allSettled([...waiting]);
      await unmatched.flush();
      sqsClient?.destroy();
      logger.info({}, 'change events off: no more checks asked for, open windows kept');
    },
  };
}

/**
 * Overlap of each incremental read: a row's time is its writer's clock, and replicas' and workers'
 * clocks may differ by this much without an update being missed.
 */
const CLOCK_OVERLAP_MS = 60_000;
/** Now and then the whole index is read again: a writer whose clock lags by more is caught up too. */
const FULL_READ_EVERY_MS = 10 * 60_000;

/**
 * Keeps `index` as the store has it: each refresh reads the stacks saved since the last (with overlap).
 * The next refresh is timed from the end of the last: on a slow store they never overlap, and stopping
 * waits for the one under way.
 */
function followStoreIndex(
  deps: Pick<ServiceDeps, 'logger'> & { store: Pick<RunStore, 'listResourceIndexes'> },
  index: ResourceIndex,
  options: { keep: (stack: string) => boolean; everyMs: number; refreshed: (size: number) => void },
) {
  let newest: number | undefined;
  let lastFull = 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  /** A stack since removed from the config matches nothing, whatever the store still holds for it. */
  const dropRemoved = () => {
    for (const stack of index.stacks()) if (!options.keep(stack)) index.removeStack(stack);
  };
  const refresh = async () => {
    const full = newest === undefined || performance.now() - lastFull >= FULL_READ_EVERY_MS;
    if (full) lastFull = performance.now();
    const entries = await deps.store.listResourceIndexes(
      full ? {} : { updatedSince: new Date(newest! - CLOCK_OVERLAP_MS) },
    );
    for (const entry of entries) if (options.keep(entry.stack)) index.replaceStack(entry.stack, entry.resources);
    for (const entry of entries) newest = Math.max(newest ?? 0, entry.updatedAt.getTime());
    if (full) dropRemoved();
    options.refreshed(index.size);
  };
  const next = () => {
    timer = setTimeout(() => {
      running = refresh()
        .catch((err: unknown) =>
          deps.logger.warn({ err: errorMessage(err) }, 'change events: the index was not refreshed (retried)'),
        )
        .then(() => {
          if (!stopped) next();
        });
    }, options.everyMs);
    timer.unref();
  };
  return {
    index,
    refresh,
    /** `index` was just read whole from the store, up to the save `upTo`: that counts as a full read. */
    readUpTo(upTo: Date | undefined) {
      newest = upTo?.getTime();
      lastFull = performance.now();
      dropRemoved();
      options.refreshed(index.size);
    },
    start() {
      next();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      return running;
    },
  };
}
