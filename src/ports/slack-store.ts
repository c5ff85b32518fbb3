import type { Approval } from '../domain/approvals/model.js';

/** Where a run's interactive message lives, so it can be updated in place. */
export interface MessageRef {
  runId: string;
  channel: string;
  ts: string;
}

/** An outbox item that failed for good (a 400, `invalid_blocks`): never sent, kept to be seen. */
export interface DeadOutboxItem {
  id: number;
  key: string;
  method: string;
  attempts: number;
  error: string;
  deadAt: Date;
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
 * Slack-side state in the same database as the runs: approvals, message refs, the outbox of
 * outgoing calls, silences and snoozes. Atomic per call, like RunStore.
 */
export interface SlackStore {
  /** Records an approval; false when this user already approved this run (a user counts once). */
  addApproval(approval: Approval): Promise<boolean>;
  listApprovals(runId: string): Promise<Approval[]>;

  setMessage(ref: MessageRef): Promise<void>;
  getMessage(runId: string): Promise<MessageRef | undefined>;
  /** The run has a message, or an outbox item that will post (or take over) one is still on its way. */
  hasMessage(runId: string): Promise<boolean>;

  enqueue(item: {
    key: string;
    method: string;
    payload: Record<string, unknown>;
    recordMessageFor?: string;
  }): Promise<OutboxItem>;
  /** The oldest due item of each key whose earlier items are all delivered: per-key order holds. */
  due(now: Date, limit: number): Promise<OutboxItem[]>;
  markDelivered(id: number): Promise<void>;
  markFailed(id: number, error: string, nextAttemptAt: Date): Promise<void>;
  /** A permanent failure (e.g. `invalid_blocks`): never retried, and no longer holds back its key. */
  markDead(id: number, error: string): Promise<void>;
  pendingCount(): Promise<number>;
  /** Deletes items delivered before `before` (their payloads are messages already sent); returns how many. */
  pruneDelivered(before: Date): Promise<number>;
  /** Deletes items that failed for good before `before`; returns how many. */
  pruneDead(before: Date): Promise<number>;
  /** Items that failed for good: how many are kept, and the newest `limit` of them. */
  listDead(limit: number): Promise<{ total: number; items: DeadOutboxItem[] }>;

  silence(silence: Silence): Promise<void>;
  unsilence(stack: string): Promise<Silence | undefined>;
  getSilence(stack: string, now: Date): Promise<Silence | undefined>;
  /** After a reject: the same drift (fingerprint) is not alerted again until `until`. */
  snooze(stack: string, fingerprint: string, until: Date): Promise<void>;
  isSnoozed(stack: string, fingerprint: string, now: Date): Promise<boolean>;
}
