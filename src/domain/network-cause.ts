import { errorMessage } from './errors.js';

/** What a failed network call's causes say: the system's code (ENOTFOUND, ECONNREFUSED…) and its words. */
export interface NetworkCause {
  code?: string;
  message: string;
}

const TIMEOUTS = new Set(['TimeoutError', 'AbortError']);

/**
 * The innermost cause of a failed request. fetch says `fetch failed` and hides why one or two `cause`s down
 * (a DNS failure, a refused connection, a proxy's answer); a connection tried on several addresses hides
 * it in an AggregateError's `errors`. Undefined when the error has no cause that says more.
 */
export function networkCause(err: unknown): NetworkCause | undefined {
  if (err instanceof Error && TIMEOUTS.has(err.name)) return { code: 'ETIMEDOUT', message: 'timed out' };
  let found: NetworkCause | undefined;
  let current = (err as { cause?: unknown } | undefined)?.cause;
  for (let depth = 0; current && depth < 6; depth++) {
    const e = current as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown; name?: unknown };
    const message = typeof e.message === 'string' && e.message ? e.message : innerMessage(e.errors);
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (typeof e.name === 'string' && TIMEOUTS.has(e.name) && !code)
      found = { code: 'ETIMEDOUT', message: 'timed out' };
    else if (message || code) found = { ...(code ? { code } : found?.code ? { code: found.code } : {}), message };
    current = e.cause;
  }
  return found;
}

function innerMessage(errors: unknown): string {
  return Array.isArray(errors) && errors[0] instanceof Error ? errors[0].message : '';
}

/** `fetch failed (ENOTFOUND: getaddrinfo ENOTFOUND slack.com)`: the error's message with its cause; `timed out` for a timeout. */
export function describeNetworkError(err: unknown): string {
  if (err instanceof Error && TIMEOUTS.has(err.name)) return 'timed out';
  const cause = networkCause(err);
  if (!cause) return errorMessage(err);
  const said = cause.code && cause.message !== cause.code ? `${cause.code}: ${cause.message}` : cause.message;
  return `${errorMessage(err)} (${said || cause.code})`;
}

/** What to do when a service was not reached at all: the network is at fault, not a credential. */
export function unreachableFix(host: string): string {
  return `this is the network, not a credential: let this host reach ${host} (DNS, and egress on port 443 through firewalls or a NetworkPolicy), or set HTTPS_PROXY (and NO_PROXY for hosts inside the network) when egress goes through a proxy`;
}
