import { z } from 'zod';
import type { Approval } from '../../../domain/approvals/model.js';
import type { DeadOutboxItem, MessageRef, OutboxItem, Silence } from '../../../ports/slack-store.js';
import { dropUndefined, epoch, json, opt, optText, parseRow } from './rows.js';

/** Rows of the Slack-side tables, parsed at the boundary like the run tables (see rows.ts). */

const ApprovalRow = z.object({
  run_id: z.string(),
  user_id: z.string(),
  at: epoch,
  groups: json(z.array(z.string())).nullable().optional(),
});

const MessageRow = z.object({ run_id: z.string(), channel: z.string(), ts: z.string() });

const OutboxRow = z.object({
  id: z.number().int(),
  key: z.string(),
  method: z.string(),
  payload: json(z.record(z.string(), z.unknown())),
  attempts: z.number().int().nonnegative(),
  next_attempt_at: epoch,
  last_error: optText,
  record_message_for: optText,
});

const SilenceRow = z.object({ stack: z.string(), until: epoch, reason: optText, by: z.string() });

export function toApproval(raw: unknown): Approval {
  const r = parseRow(ApprovalRow, 'approvals', raw);
  return { runId: r.run_id, userId: r.user_id, at: new Date(r.at), ...(r.groups ? { groups: r.groups } : {}) };
}

export function toMessageRef(raw: unknown): MessageRef {
  const r = parseRow(MessageRow, 'slack_messages', raw);
  return { runId: r.run_id, channel: r.channel, ts: r.ts };
}

export function toOutboxItem(raw: unknown): OutboxItem {
  const r = parseRow(OutboxRow, 'outbox', raw);
  return dropUndefined({
    id: r.id,
    key: r.key,
    method: r.method,
    payload: r.payload,
    attempts: r.attempts,
    nextAttemptAt: new Date(r.next_attempt_at),
    lastError: opt(r.last_error),
    recordMessageFor: opt(r.record_message_for),
  });
}

const DeadOutboxRow = z.object({
  id: z.number().int(),
  key: z.string(),
  method: z.string(),
  attempts: z.number().int().nonnegative(),
  last_error: optText,
  dead_at: epoch,
});

export function toDeadOutboxItem(raw: unknown): DeadOutboxItem {
  const r = parseRow(DeadOutboxRow, 'outbox', raw);
  return {
    id: r.id,
    key: r.key,
    method: r.method,
    attempts: r.attempts,
    error: r.last_error ?? '',
    deadAt: new Date(r.dead_at),
  };
}

export function toSilence(raw: unknown): Silence {
  const r = parseRow(SilenceRow, 'silences', raw);
  return dropUndefined({ stack: r.stack, until: new Date(r.until), reason: opt(r.reason), by: r.by });
}
