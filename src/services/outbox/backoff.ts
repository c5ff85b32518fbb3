export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

/**
 * Delay before the next try of an item that failed `attempts` times (counting this failure): exponential,
 * capped, with jitter in [50%, 100%] so many items failing together do not come back in one burst.
 * A Retry-After from Slack wins when given: it is the server saying when it will take calls again.
 */
export function retryDelayMs(
  attempts: number,
  backoff: BackoffOptions,
  random: () => number,
  retryAfterMs?: number,
): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) return Math.max(1, retryAfterMs);
  const exponential = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.max(1, Math.round(exponential * (0.5 + random() / 2)));
}
