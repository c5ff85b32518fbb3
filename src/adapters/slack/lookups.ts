/**
 * Reads from Slack that decide who may do or see what (user groups, guests, channel members): parsed with
 * zod, failures as ExternalServiceError (callers refuse rather than guess), answers trusted for a TTL.
 */
import type { z } from 'zod';
import { DriftgateError, ExternalServiceError, errorMessage } from '../../domain/errors.js';
import type { SlackApi } from '../../ports/slack-api.js';

/** A Slack Web API call: method and arguments in, Slack's JSON body (`ok: true`) out. */
export type SlackCall = SlackApi['call'];

export async function lookUp<T>(
  call: SlackCall,
  method: string,
  args: Record<string, unknown>,
  schema: z.ZodType<T>,
): Promise<T> {
  let body: Record<string, unknown>;
  try {
    body = await call(method, args);
  } catch (err) {
    // SlackApi throws ExternalServiceError already; anything else is a failure to reach Slack.
    if (err instanceof DriftgateError && err.code === 'EXTERNAL_SERVICE') throw err;
    throw new ExternalServiceError('slack', `${method} failed: ${errorMessage(err)}`, true, { cause: err });
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => i.path.join('.') || '(root)').join(', ');
    throw new ExternalServiceError('slack', `${method} returned an unexpected response (at ${where})`, false);
  }
  return parsed.data;
}

export interface TtlCache<T> {
  /** The cached answer for `key`, or `load()`'s; concurrent askers share one call, a failure is not kept. */
  get(key: string, load: () => Promise<T>): Promise<T>;
}

export function createTtlCache<T>(ttlMs: number, now: () => Date): TtlCache<T> {
  const entries = new Map<string, { expiresAt: number; value: Promise<T> }>();
  return {
    get(key, load) {
      const hit = entries.get(key);
      if (hit && hit.expiresAt > now().getTime()) return hit.value;
      const entry = { expiresAt: now().getTime() + ttlMs, value: load() };
      entries.set(key, entry);
      entry.value.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
      return entry.value;
    },
  };
}
