import { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError } from '@slack/web-api';
import { SlackApiError } from '../../ports/slack-api.js';
import { describeNetworkError, networkCause } from '../../domain/network-cause.js';

/** Slack error codes that say "try again later" rather than "this will never work". */
const RETRIABLE_CODES = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

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
    const network = networkCause(err.original)?.code ?? 'unreachable';
    return new SlackApiError(method, `could not reach Slack: ${mask(describeNetworkError(err.original))}`, true, {
      network,
    });
  }
  // Not the client's error type: a timeout or network failure of our own fetch, or a bug; retrying is safe.
  const network = networkCause(err)?.code;
  return new SlackApiError(method, mask(describeNetworkError(err)), true, network ? { network } : {});
}

export function httpError(method: string, status: number): SlackApiError {
  // 408 and 5xx are Slack's trouble and pass; other statuses will answer the same way next time.
  const retriable = status >= 500 || status === 408;
  return new SlackApiError(method, `HTTP ${status}`, retriable, { status });
}
