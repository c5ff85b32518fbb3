import { createAppAuth } from '@octokit/auth-app';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import Bottleneck from 'bottleneck';
import type { GitHubSettings } from './env.js';
import type { Logger } from '../../ports/logger.js';

const GitHubOctokit = Octokit.plugin(retry, throttling);
export type GitHubOctokit = InstanceType<typeof GitHubOctokit>;

/** Rate-limited calls are retried this often, then fail: a remediation PR can wait for the next run. */
const RATE_LIMIT_RETRIES = 2;
/**
 * The retry plugin takes 5xx and network failures; 403 and 429 are the throttling plugin's (rate limits),
 * and the other 4xx answer the same way next time.
 */
const DO_NOT_RETRY = [400, 401, 403, 404, 410, 422, 429, 451];

export type GitHubLogger = Pick<Logger, 'warn'> & {
  /** Octokit's line for each failed request (`GET /repos/… - 502 in 3ms`), when given. */
  debug?: Logger['debug'];
};

export interface GitHubClientOptions {
  logger?: GitHubLogger;
  /** Retries of a 5xx or network failure wait (n+1)² × this: 1 s, 4 s, 9 s by default. */
  retryBaseMs?: number;
  /** How many times a 5xx or network failure is retried (default 3). */
  retries?: number;
  /** A rate limit's wait (Retry-After, or until the reset) is counted in seconds of this many ms (default 1000). */
  rateLimitSecondMs?: number;
  /**
   * Least time between two writes. Default: the throttling plugin's pacing, which follows GitHub's advice
   * against secondary limits (1 s between writes, 3 s between PRs). Tests set 0.
   */
  writeSpacingMs?: number;
  /** Per-request timeout (default 30 s): a hung connection must not stall a remediation. */
  timeoutMs?: number;
  /** The fetch the client uses; default the global one. */
  fetch?: typeof fetch;
}

/** Removes secrets from a line before it is logged. */
type Mask = (text: string) => string;

/**
 * Octokit with retries (5xx, network) and throttling (primary and secondary rate limits), authenticated
 * by a token or as a GitHub App installation (auth-app mints and refreshes the installation token).
 */
export function createOctokit(settings: GitHubSettings, options: GitHubClientOptions, mask: Mask): GitHubOctokit {
  const logger = options.logger;
  const baseFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const timedFetch: typeof fetch = (input, init) =>
    baseFetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(timeoutMs) });
  const onLimit =
    (kind: string) =>
    (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
      if (retryCount >= RATE_LIMIT_RETRIES) return false;
      const waitMs = retryAfter * (options.rateLimitSecondMs ?? 1000);
      logger?.warn(
        { method: request.method, route: request.url, waitMs, attempt: retryCount + 1 },
        `GitHub ${kind} rate limit: retrying after ${waitMs} ms`,
      );
      return true;
    };
  const spacing =
    options.writeSpacingMs === undefined
      ? {}
      : {
          write: new Bottleneck.Group({ maxConcurrent: 1, minTime: options.writeSpacingMs }),
          notifications: new Bottleneck.Group({ maxConcurrent: 1, minTime: options.writeSpacingMs }),
        };
  // Octokit's warnings (auth-app's retries, deprecations) are ours, masked. Its `error` is the request log's
  // line per failed request, which the GitHubError (or the retry warning) already says: debug.
  const warn = (message: string) => logger?.warn({}, mask(String(message)));
  const debug = (message: string) => logger?.debug?.({}, mask(String(message)));
  const auth =
    settings.auth.type === 'token'
      ? { auth: settings.auth.token }
      : {
          authStrategy: createAppAuth,
          auth: {
            appId: settings.auth.appId,
            privateKey: settings.auth.privateKey,
            installationId: settings.auth.installationId,
          },
        };

  return new GitHubOctokit({
    ...auth,
    baseUrl: settings.apiUrl,
    userAgent: 'driftgate',
    request: { fetch: timedFetch },
    log: { debug: () => {}, info: () => {}, warn, error: debug },
    retry: {
      doNotRetry: DO_NOT_RETRY,
      retries: options.retries ?? 3,
      ...(options.retryBaseMs === undefined ? {} : { retryAfterBaseValue: options.retryBaseMs }),
    },
    throttle: {
      onRateLimit: onLimit('primary'),
      onSecondaryRateLimit: onLimit('secondary'),
      ...(options.rateLimitSecondMs === undefined ? {} : { retryAfterBaseValue: options.rateLimitSecondMs }),
      ...spacing,
    },
  });
}
