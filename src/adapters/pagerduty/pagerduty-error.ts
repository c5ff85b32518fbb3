import { ExternalServiceError } from '../../domain/errors.js';

/** A failed Events API call, with what the outbox needs to decide between retrying and giving up. */
export class PagerdutyError extends ExternalServiceError {
  constructor(
    message: string,
    retriable: boolean,
    readonly details: {
      /** HTTP status, when PagerDuty answered. */
      status?: number;
      /** From a Retry-After header: wait at least this long. */
      retryAfterMs?: number;
    } = {},
  ) {
    super('pagerduty', message, retriable);
  }
}

/**
 * 429 and 5xx (and 408) are PagerDuty's trouble and pass; 400 is an event it will refuse every time, and
 * so is any other 4xx (a wrong URL or a payload too large does not fix itself).
 */
export function isRetriableStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

/** Retry-After as seconds or an HTTP date -> milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: Date): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}
