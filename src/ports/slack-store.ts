import type { Approval } from '../domain/approvals/model.js';

/** Where a run's interactive message lives, so it can be updated in place. */
export interface MessageRef {
  runId: string;
  channel: string;
  ts: string;
}

export interface OutboxItem {
  id: number;
  /** Items with the same key are delivered in order (a run id, or `stack:<name>`). */
  key: string;
  /** Slack Web API method, e.g. `chat.postMessage`. */
  method: string;
  payload: Record<string, unknown>;
  attempts: number;
  nextAttemptAt: Date;
  lastError?: string;
  /** When set, the `ts` of the posted message is recorded as this run's message. */
  recordMessageFor?: string;
}

export interface Silence {
  stack: string;
  until: Date;
  reason?: string;
  by: string;
}

/**
 * Slack-side state in the same SQLite database as the runs: approvals, message refs, the outbox of
 * outgoing calls, silences and snoozes. Synchronous and atomic, like RunStore.
 */
export interface SlackStore {
  /** Records an approval; false when this user already approved this run (a user counts once). */
  addApproval(approval: Approval): boolean;
  listApprovals(runId: string): Approval[];

  setMessage(ref: MessageRef): void;
  getMessage(runId: string): MessageRef | undefined;
  /** The run has a message, or an outbox item that will post (or take over) one is still on its way. */
  hasMessage(runId: string): boolean;

  enqueue(item: {
    key: string;
    method: string;
    payload: Record<string, unknown>;
    recordMessageFor?: string;
  }): OutboxItem;
  /** The oldest due item of each key whose earlier items are all delivered: per-key order holds. */
  due(now: Date, limit: number): OutboxItem[];
  markDelivered(id: number): void;
  markFailed(id: number, error: string, nextAttemptAt: Date): void;
  /** A permanent failure (e.g. `invalid_blocks`): never retried, and no longer holds back its key. */
  markDead(id: number, error: string): void;
  pendingCount(): number;
  /** Deletes items delivered before `before` (their payloads are messages already sent); returns how many. */
  pruneDelivered(before: Date): number;

  silence(silence: Silence): void;
  unsilence(stack: string): Silence | undefined;
  getSilence(stack: string, now: Date): Silence | undefined;
  /** After a reject: the same drift (fingerprint) is not alerted again until `until`. */
  snooze(stack: string, fingerprint: string, until: Date): void;
  isSnoozed(stack: string, fingerprint: string, now: Date): boolean;
}
