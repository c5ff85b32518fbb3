import { z } from 'zod';
import { DriftgateError, errorMessage } from '../../domain/errors.js';
import type { DeliveryOutcome } from '../../ports/outbox.js';
import type { OutboxItem, SlackStore } from '../../ports/slack-store.js';
import type { SlackApi } from '../../ports/slack-api.js';
import { SlackApiError } from '../../ports/slack-api.js';
import { resolvePlaceholders } from './placeholders.js';

/** The outbox method name that means `SlackApi.uploadFile` (the name Slack's SDK gives its v2 helper). */
export const UPLOAD_METHOD = 'files.uploadV2';

export interface DeliverDeps {
  store: Pick<SlackStore, 'getMessage' | 'setMessage'>;
  api: SlackApi;
  /** After this many tries an item whose message placeholder still has no message gives up. */
  maxUnresolvedAttempts: number;
}

const UploadPayload = z.object({
  channel: z.string().min(1),
  thread_ts: z.string().min(1).optional(),
  filename: z.string().min(1),
  title: z.string().optional(),
  content: z.string(),
});

const PostedMessage = z.object({ channel: z.string().min(1), ts: z.string().min(1) });

/** One attempt at one item. Never throws for Slack's failures: it says what the worker should do next. */
export async function deliverItem(item: OutboxItem, deps: DeliverDeps): Promise<DeliveryOutcome> {
  const resolution = await resolvePlaceholders(item.payload, (runId) => deps.store.getMessage(runId));
  if (!resolution.ok) {
    if (resolution.reason === 'misplaced')
      return { kind: 'dead', error: `message placeholder in field "${resolution.field}", which cannot take one` };
    const error = `no Slack message recorded yet for run ${resolution.runId}`;
    // Its post may be in another key's queue, or waiting for a retry: wait a while, but not forever.
    return item.attempts + 1 >= deps.maxUnresolvedAttempts ? { kind: 'dead', error } : { kind: 'retry', error };
  }

  let result: Record<string, unknown> | undefined;
  try {
    if (item.method === UPLOAD_METHOD) {
      const upload = UploadPayload.safeParse(resolution.payload);
      if (!upload.success)
        return {
          kind: 'dead',
          error: `${UPLOAD_METHOD} payload invalid at ${upload.error.issues.map((i) => i.path.join('.')).join(', ')}`,
        };
      const { channel, thread_ts, filename, title, content } = upload.data;
      await deps.api.uploadFile({
        channel,
        filename,
        content,
        ...(thread_ts ? { threadTs: thread_ts } : {}),
        ...(title ? { title } : {}),
      });
    } else {
      result = await deps.api.call(item.method, resolution.payload);
    }
  } catch (err) {
    const retriable =
      err instanceof SlackApiError ? err.retriable : err instanceof DriftgateError && err.code === 'EXTERNAL_SERVICE';
    const retryAfterMs = err instanceof SlackApiError ? err.details.retryAfterMs : undefined;
    if (!retriable) return { kind: 'dead', error: errorMessage(err) };
    return retryAfterMs === undefined
      ? { kind: 'retry', error: errorMessage(err) }
      : { kind: 'retry', error: errorMessage(err), retryAfterMs };
  }

  if (item.recordMessageFor && result) {
    const posted = PostedMessage.safeParse(result);
    // Slack took the message; without channel and ts only later updates of it suffer, and they say so.
    if (posted.success) await deps.store.setMessage({ runId: item.recordMessageFor, ...posted.data });
  }
  return { kind: 'delivered' };
}
