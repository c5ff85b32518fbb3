import { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError } from '@slack/web-api';
import { ExternalServiceError, errorMessage } from '../domain/errors.js';

/** Slack error codes that say "try again later" rather than "this will never work". */
const RETRIABLE_CODES = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

/** A failed Slack Web API call, with what the outbox needs to decide between retrying and giving up. */
export class SlackApiError extends ExternalServiceError {
  constructor(
    readonly method: string,
    message: string,
    retriable: boolean,
    readonly details: {
      /** Slack's `error` code from an `ok: false` answer, e.g. `invalid_blocks`. */
      slackError?: string;
      /** HTTP status when Slack answered with one other than 200. */
      status?: number;
      /** From a 429's Retry-After: wait at least this long. */
      retryAfterMs?: number;
    } = {},
  ) {
    super('slack', `${method} failed: ${message}`, retriable);
  }
}

/**
 * Maps whatever the Slack client threw to a SlackApiError. The client's own errors are never kept as
 * `cause`: they can hold request details, and `mask` takes the token out of every message we build.
 */
export function toSlackApiError(method: string, err: unknown, mask: (text: string) => string): SlackApiError {
  if (err instanceof SlackApiError) return err;
  if (err instanceof WebAPIRateLimitedError) {
    return new SlackApiError(method, `rate limited, retry after ${err.retryAfter}s`, true, {
      slackError: 'ratelimited',
      status: 429,
      retryAfterMs: err.retryAfter * 1000,
    });
  }
  if (err instanceof WebAPIHTTPError) return httpError(method, err.statusCode);
  if (err instanceof WebAPIPlatformError) {
    const code = err.data.error;
    const listed = (err.data as { problems?: unknown }).problems;
    const problems = Array.isArray(listed) ? listed.slice(0, 5).map(String) : [];
    const detail = problems.length ? ` (${mask(problems.join('; '))})` : '';
    return new SlackApiError(method, `${mask(code)}${detail}`, RETRIABLE_CODES.has(code), { slackError: code });
  }
  if (err instanceof WebAPIRequestError) {
    return new SlackApiError(method, `could not reach Slack: ${mask(networkReason(err.original))}`, true);
  }
  // Not the client's error type: a timeout or network failure of our own fetch, or a bug; retrying is safe.
  return new SlackApiError(method, mask(networkReason(err)), true);
}

export function httpError(method: string, status: number): SlackApiError {
  // 408 and 5xx are Slack's trouble and pass; other statuses will answer the same way next time.
  const retriable = status >= 500 || status === 408;
  return new SlackApiError(method, `HTTP ${status}`, retriable, { status });
}

/** `fetch failed` alone says nothing: the useful part (ECONNREFUSED, ETIMEDOUT) sits in `cause`. */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  return code ? `${errorMessage(err)} (${code})` : errorMessage(err);
}
