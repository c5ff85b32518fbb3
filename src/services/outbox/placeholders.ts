import type { MessageRef } from '../../ports/slack-store.js';

/**
 * Message placeholders in outbox payloads.
 *
 * A run's interactive message is posted by one outbox item, and updates and thread replies to it are
 * often enqueued before that post has been delivered, so its `channel` and `ts` are not known yet. Such
 * payloads carry `{ "$message": "<runId>" }` instead, and the worker fills it in at delivery time from
 * the MessageRef recorded when the post went out (`recordMessageFor`).
 *
 * Only top-level fields are looked at, and the field decides what goes in:
 *   - `channel`, `channel_id`          -> the message's channel
 *   - `ts`, `thread_ts`, `message_ts` -> the message's ts
 * So `chat.update` is `{ channel: ref, ts: ref, text, blocks }` and a reply in its thread is
 * `{ channel: ref, thread_ts: ref, text }` (or a fixed channel with `thread_ts: ref`), where
 * `ref = messagePlaceholder(runId)`. For `files.uploadV2`, `channel` and `thread_ts` work the same.
 */
export interface MessagePlaceholder {
  $message: string;
}

export function messagePlaceholder(runId: string): MessagePlaceholder {
  return { $message: runId };
}

const FIELD_PART: Record<string, 'channel' | 'ts'> = {
  channel: 'channel',
  channel_id: 'channel',
  ts: 'ts',
  thread_ts: 'ts',
  message_ts: 'ts',
};

function placeholderRunId(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const runId = (value as Record<string, unknown>).$message;
  return keys.length === 1 && typeof runId === 'string' ? runId : undefined;
}

export type Resolution =
  | { ok: true; payload: Record<string, unknown> }
  /** The run's message is not recorded (yet): its post may still be on its way. */
  | { ok: false; reason: 'missing'; runId: string }
  /** A placeholder in a field that cannot take one: a bug in whoever enqueued it. */
  | { ok: false; reason: 'misplaced'; field: string };

export async function resolvePlaceholders(
  payload: Record<string, unknown>,
  lookup: (runId: string) => Promise<MessageRef | undefined>,
): Promise<Resolution> {
  const resolved: Record<string, unknown> = { ...payload };
  for (const [field, value] of Object.entries(payload)) {
    const runId = placeholderRunId(value);
    if (runId === undefined) continue;
    const part = FIELD_PART[field];
    if (!part) return { ok: false, reason: 'misplaced', field };
    const ref = await lookup(runId);
    if (!ref) return { ok: false, reason: 'missing', runId };
    resolved[field] = ref[part];
  }
  return { ok: true, payload: resolved };
}
