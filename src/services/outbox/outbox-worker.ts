import { errorMessage } from '../../domain/errors.js';
import type { DeliveryOutcome, OutboxDeliverer } from '../../ports/outbox.js';
import type { OutboxItem, SlackStore } from '../../ports/slack-store.js';
import type { SlackApi } from '../../ports/slack-api.js';
import { type BackoffOptions, retryDelayMs } from './backoff.js';
import { deliverItem } from './deliver.js';
import type { Logger } from '../../ports/logger.js';

/**
 * Delivers the Slack outbox: every outgoing call is first a row in the store, so Slack being down or
 * rate limiting loses nothing, and a restarted process picks up where the last one stopped.
 *
 * - Order: items of one key go out in enqueue order (the store only hands out a key's oldest open item).
 * - Payloads may point at a run's message before it exists: see placeholders.ts.
 * - Method `files.uploadV2` means `SlackApi.uploadFile` with `{ channel, thread_ts?, filename, title?, content }`.
 * - Retriable failures (network, 429, 5xx) come back after an exponential backoff with jitter, or after
 *   Slack's Retry-After; anything else (invalid_blocks, channel_not_found, …) is dead-lettered at once.
 * - Delivery is at least once: a crash between Slack's answer and `markDelivered` repeats that one call.
 *   Run one worker per database file.
 * - Items that are not Slack calls go to the deliverer of their method's namespace (`pagerduty.enqueue`
 *   -> `deliverers.pagerduty`), with the same order, retries and dead letters.
 * Logs carry the item's id, key, method and error text, never its payload: it may quote plan output.
 */
export interface OutboxWorkerOptions {
  store: SlackStore;
  /** Absent when Slack is off: Slack items then wait (retried with backoff) for a process that has it. */
  api?: SlackApi;
  /** By the namespace of the methods they take, the part before the first `.`; never a Slack one. */
  deliverers?: Readonly<Record<string, OutboxDeliverer>>;
  now: () => Date;
  logger: Pick<Logger, 'warn' | 'error' | 'debug'>;
  backoff?: BackoffOptions;
  /** Items fetched per round. */
  batchSize?: number;
  /** See deliver.ts: how long an item waits for its run's message to be recorded. */
  maxUnresolvedAttempts?: number;
  random?: () => number;
  onDelivered?: (item: OutboxItem) => void | Promise<void>;
  /**
   * Whether this process delivers on its timer: with several `serve`s on one store only the leader does
   * (`due()` claims nothing, so two would send an item twice). drain() is not gated. Default always.
   */
  active?: () => boolean;
  onFailed?: (
    item: OutboxItem,
    error: string,
    outcome: { dead: boolean; nextAttemptAt?: Date },
  ) => void | Promise<void>;
}

export interface OutboxWorker {
  /** Drains now and then every `pollMs` until stop(). */
  start(pollMs: number): void;
  /** Stops polling and waits for the round in progress. */
  stop(): Promise<void>;
  /** Delivers everything due now (and what becomes due by delivering it); resolves to how many went out. */
  drain(): Promise<number>;
}

export function createOutboxWorker(options: OutboxWorkerOptions): OutboxWorker {
  const { store, api, now, logger } = options;
  const backoff = options.backoff ?? { baseMs: 1000, maxMs: 5 * 60_000 };
  const batchSize = options.batchSize ?? 20;
  const random = options.random ?? Math.random;
  const maxUnresolvedAttempts = options.maxUnresolvedAttempts ?? 8;
  const deliverers = new Map(Object.entries(options.deliverers ?? {}));
  let timer: NodeJS.Timeout | undefined;
  // One round at a time, whether from the timer or drain(): two rounds could send one item twice.
  let current: Promise<number> = Promise.resolve(0);
  let queued = 0;

  /** Who delivers an item, and the name its log lines go by. */
  function route(item: OutboxItem): { name: string; deliver: () => Promise<DeliveryOutcome> } {
    const namespace = item.method.split('.', 1)[0]!;
    const other = deliverers.get(namespace);
    if (other)
      return {
        name: namespace,
        deliver: () => other.deliver(item).catch((err: unknown) => ({ kind: 'retry', error: errorMessage(err) })),
      };
    if (!api)
      return {
        name: 'slack',
        deliver: async () => ({ kind: 'retry', error: 'Slack is not configured in this process' }),
      };
    return { name: 'slack', deliver: () => deliverItem(item, { store, api, maxUnresolvedAttempts }) };
  }

  async function handle(item: OutboxItem): Promise<boolean> {
    const { name, deliver } = route(item);
    const outcome = await deliver();
    const where = { outboxId: item.id, key: item.key, method: item.method, attempts: item.attempts + 1 };
    if (outcome.kind === 'delivered') {
      await store.markDelivered(item.id);
      logger.debug(where, `${name} outbox item delivered`);
      await options.onDelivered?.(item);
      return true;
    }
    if (outcome.kind === 'dead') {
      await store.markDead(item.id, outcome.error);
      logger.error({ ...where, err: outcome.error }, `${name} outbox item failed permanently; dead-lettered`);
      await options.onFailed?.(item, outcome.error, { dead: true });
      return false;
    }
    const delay = retryDelayMs(item.attempts + 1, backoff, random, outcome.retryAfterMs);
    const nextAttemptAt = new Date(now().getTime() + delay);
    await store.markFailed(item.id, outcome.error, nextAttemptAt);
    logger.warn({ ...where, err: outcome.error, retryInMs: delay }, `${name} outbox item failed; will retry`);
    await options.onFailed?.(item, outcome.error, { dead: false, nextAttemptAt });
    return false;
  }

  async function round(): Promise<number> {
    let delivered = 0;
    // An item is tried at most once per round, so a clock that does not move cannot spin this loop.
    const tried = new Set<number>();
    for (;;) {
      const due = (await store.due(now(), batchSize)).filter((item) => !tried.has(item.id));
      if (due.length === 0) return delivered;
      for (const item of due) {
        tried.add(item.id);
        if (await handle(item)) delivered++;
      }
    }
  }

  function drain(): Promise<number> {
    queued++;
    const next = current.then(round, round).finally(() => queued--);
    current = next.catch(() => 0);
    return next;
  }

  function tick(): void {
    // A slow Slack must not pile up rounds behind the one in progress.
    if (queued > 0 || !(options.active?.() ?? true)) return;
    drain().catch((err: unknown) => logger.error({ err: errorMessage(err) }, 'slack outbox round failed'));
  }

  return {
    start(pollMs) {
      if (timer) return;
      tick();
      timer = setInterval(tick, pollMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await current;
    },
    drain,
  };
}
