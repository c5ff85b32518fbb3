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
import type { Metrics } from '../metrics/registry.js';
import { createDriftAttributor, PendingChanges } from '../services/attribute-drift.js';
import type { CheckChangeEvents, ServiceDeps } from '../services/deps.js';
import type { AppContext } from './context.js';
import { createResourceIndexKeeper } from '../services/resource-index-keeper.js';
import { createUnmatchedChangeRecorder } from '../services/unmatched-changes.js';

/**
 * Change events in `serve`: the push door (`POST /events/aws`) and the pull door (the SQS long poll)
 * feed one intake (classify, match against the resource index, debounce), whose due requests queue an
 * `event` check of the stack with the matched changes kept for its alert. The index and the attribution
 * are handed to every check (`checks`), so plans keep the index current and drift is attributed.
 */

export interface ChangeEventsOptions {
  config: ChangeEventsConfig;
  env: Record<string, string | undefined>;
  deps: Pick<ServiceDeps, 'store' | 'terraform' | 'logger' | 'now'>;
  metrics: Pick<Metrics, 'changeEvents'>;
  /** Queues an event-triggered check of the stack. */
  requestCheck(stack: string): Promise<unknown>;
  /** The config's stacks: what the store indexed for a stack since removed from it matches nothing. */
  stacks: readonly string[];
  /** The debounce's timer; default the real one. */
  timer?: DebounceTimer;
}

export interface RunningChangeEvents {
  mounts: HttpMount[];
  checks: CheckChangeEvents;
  stop(): Promise<void>;
}

const realTimer: DebounceTimer = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** The SDK's clients get the credentials of driftgate's environment (as given, never process.env). */
function awsCredentials(env: Record<string, string | undefined>) {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN } = env;
  if (!accessKeyId || !secretAccessKey) return {};
  return {
    credentials: { accessKeyId, secretAccessKey, ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}) },
  };
}

function pushSecret(config: ChangeEventsConfig, env: Record<string, string | undefined>): string | undefined {
  if (!config.secretEnv) return undefined;
  const secret = env[config.secretEnv];
  if (!secret)
    throw new ConfigError([
      { path: 'changeEvents.secretEnv', message: `${config.secretEnv} is not set in the environment` },
    ]);
  return secret;
}

/**
 * For serve: nothing without `changeEvents` in the config; with it, change events started and handed to
 * every check the context's services run (`deps.changeEvents`).
 */
export async function startChangeEvents(
  context: Pick<AppContext, 'config' | 'deps'>,
  metrics: Pick<Metrics, 'changeEvents'>,
  env: Record<string, string | undefined>,
  requestCheck: (stack: string) => Promise<unknown>,
): Promise<RunningChangeEvents | undefined> {
  const config = context.config.changeEvents;
  if (!config) return undefined;
  const stacks = context.config.stacks.map((s) => s.name);
  const running = await startChangeEventsWith({ config, env, deps: context.deps, metrics, requestCheck, stacks });
  context.deps.changeEvents = running.checks;
  return running;
}

export async function startChangeEventsWith(options: ChangeEventsOptions): Promise<RunningChangeEvents> {
  const { config, env, deps, metrics } = options;
  const logger = deps.logger;
  const secret = pushSecret(config, env);
  const index = new ResourceIndex();
  const keeper = createResourceIndexKeeper(deps, index);
  await keeper.load();
  const configured = new Set(options.stacks);
  for (const stack of index.stacks()) if (!configured.has(stack)) index.removeStack(stack);
  const classify = createClassifier({ ownIdentities: config.ownIdentities, automation: config.automation });
  const pending = new PendingChanges();
  const unmatched = createUnmatchedChangeRecorder(deps);
  const debouncer = createCheckDebouncer<MatchedChange>({
    timer: options.timer ?? realTimer,
    windowMs: config.debounce,
    onDue: (request) => {
      pending.add(request.stack, request.changes);
      logger.info(
        { stack: request.stack, resources: request.resources, events: request.coalesced + 1 },
        'change events: checking the stack',
      );
      options
        .requestCheck(request.stack)
        .catch((err: unknown) =>
          logger.warn({ stack: request.stack, err: errorMessage(err) }, 'change events: the check was not queued'),
        );
    },
  });

  const count = (outcome: IntakeOutcome) => {
    if (outcome.kind === 'ignored') {
      metrics.changeEvents.inc({ outcome: 'ignored', reason: ignoredReason(outcome.classification) });
    } else if (outcome.kind === 'unmatched') {
      metrics.changeEvents.inc({ outcome: 'unmatched', reason: '' });
      unmatched.add(outcome.change);
      logger.info(
        { eventId: outcome.change.eventId, eventName: outcome.change.eventName, source: outcome.change.eventSource },
        'change event names no resource a stack manages',
      );
    } else {
      for (const s of outcome.stacks) metrics.changeEvents.inc({ outcome: 'matched', reason: s.result });
    }
  };
  const take = (event: ChangeEvent) => count(takeChangeEvent({ classify, index, debouncer }, event));

  const cloudTrailRegion =
    config.cloudTrail.region ?? (config.sqs ? (config.sqs.region ?? sqsQueueRegion(config.sqs.queueUrl)) : undefined);
  const cloudTrail =
    config.cloudTrail.lookup && cloudTrailRegion
      ? createCloudTrailClient({ region: cloudTrailRegion, env, ...awsCredentials(env) })
      : undefined;
  const attribute = createDriftAttributor({
    ...deps,
    index,
    pending,
    classify,
    ...(cloudTrail
      ? {
          history: createCloudTrailLookup({
            client: cloudTrail,
            account: 'driftgate',
            region: cloudTrailRegion!,
            limiter: createLookupLimiter(),
          }),
        }
      : {}),
  });

  let stopped = false;
  const mounts: HttpMount[] = secret
    ? [
        {
          path: AWS_EVENTS_PATH,
          listener: createAwsEventsListener({ secret, secretHeader: config.secretHeader, take, logger }),
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
        }).catch((err: unknown) => {
          logger.error({ err: errorMessage(err) }, 'change events: the SQS loop stopped');
          return undefined;
        })
      : undefined;
  logger.info(
    { push: Boolean(secret), sqs: Boolean(sqs), cloudTrail: Boolean(cloudTrail), indexed: index.size },
    'change events on',
  );

  return {
    mounts,
    checks: {
      indexPlan: (stack, plan) => keeper.fromPlan(stack, plan),
      async cleanPlan(stack, signal) {
        // A clean plan answers what the waiting changes asked: nothing drifted.
        pending.take(stack.name);
        await keeper.fromState(stack, signal);
      },
      attribute: (stack, drifted, options) => attribute(stack.name, drifted, options),
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      debouncer.stop();
      controller.abort();
      await polling;
      await unmatched.flush();
      sqsClient?.destroy();
      cloudTrail?.destroy();
    },
  };
}
