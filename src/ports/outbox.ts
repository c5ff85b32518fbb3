import type { OutboxItem } from './slack-store.js';

/** What one delivery attempt of an outbox item says the worker should do next. */
export type DeliveryOutcome =
  | { kind: 'delivered' }
  | { kind: 'retry'; error: string; retryAfterMs?: number }
  | { kind: 'dead'; error: string };

/** Delivers outbox items that are not Slack calls (PagerDuty pages). Says what to do next instead of throwing. */
export interface OutboxDeliverer {
  deliver(item: OutboxItem): Promise<DeliveryOutcome>;
}

/** Where a page's run is in Slack, in a process with Slack configured: what a page links to. */
export interface PageSlackLinks {
  /** Permalink of the run's message, once its post is delivered. */
  messageLink(runId: string): Promise<string | undefined>;
  /** The channel the stack's alerts go to. */
  channelOf(stack: string): string;
}
