import { CloudTrailClient, LookupEventsCommand, type LookupEventsCommandOutput } from '@aws-sdk/client-cloudtrail';
import Bottleneck from 'bottleneck';
import { ChangeEventError, parseLookupRecord } from '../../domain/change-events/schema.js';
import { ExternalServiceError } from '../../domain/errors.js';
import type { ChangeHistory, ChangeHistoryResult } from '../../ports/change-history.js';
import { type AwsClientOptions, awsClientConfig } from './client-config.js';

/**
 * CloudTrail LookupEvents by resource name: who changed the resources a scheduled sweep found drifted.
 * CloudTrail allows 2 LookupEvents calls a second per account and region and answers ThrottlingException
 * over that; every lookup for one account and region goes through one limiter, and a throttled call is
 * retried with exponential backoff before a CloudTrailLookupError says it gave up.
 */

/** One limiter per account and region, shared by every lookup of the process. */
export function createLookupLimiter(callsPerSecond = 2): Bottleneck.Group {
  return new Bottleneck.Group({ maxConcurrent: 1, minTime: Math.ceil(1000 / callsPerSecond) });
}

export class CloudTrailLookupError extends ExternalServiceError {
  constructor(
    readonly account: string,
    readonly region: string,
    readonly resourceName: string,
    readonly attempts: number,
    reason: string,
    retriable: boolean,
    options?: { cause?: unknown },
  ) {
    super(
      'cloudtrail',
      `LookupEvents for resource ${resourceName} in account ${account}, ${region}: ${reason} after ${attempts} attempt${attempts === 1 ? '' : 's'}`,
      retriable,
      options,
    );
  }
}

/**
 * A CloudTrail client whose SDK retries are off (`maxAttempts: 1`): the adapter's backoff decides, so a
 * throttled call is not retried twice over. The endpoint comes from the caller, else from
 * AWS_ENDPOINT_URL_CLOUDTRAIL in the given environment.
 */
export function createCloudTrailClient(options: AwsClientOptions): CloudTrailClient {
  return new CloudTrailClient({ ...awsClientConfig(options, 'AWS_ENDPOINT_URL_CLOUDTRAIL'), maxAttempts: 1 });
}

export interface CloudTrailLookupOptions {
  client: CloudTrailClient;
  account: string;
  region: string;
  limiter: Bottleneck.Group;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** Attempts per call, the first included (default 5). */
  maxAttempts?: number;
  /** First backoff; doubled each retry, with jitter (default 500 ms). */
  baseDelayMs?: number;
  /** Pages read per lookup at most (50 events each; default 20): a busy bucket has thousands. */
  maxPages?: number;
}

const isThrottling = (err: unknown) => {
  const e = err as { name?: string; $retryable?: { throttling?: boolean } } | undefined;
  return e?.name === 'ThrottlingException' || e?.$retryable?.throttling === true;
};

export function createCloudTrailLookup(options: CloudTrailLookupOptions): ChangeHistory {
  const now = options.now ?? (() => new Date());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const maxAttempts = options.maxAttempts ?? 5;
  const baseDelay = options.baseDelayMs ?? 500;
  const maxPages = options.maxPages ?? 20;
  const limiter = options.limiter.key(`${options.account}/${options.region}`);

  async function page(
    resourceName: string,
    since: Date,
    until: Date,
    nextToken: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<LookupEventsCommandOutput> {
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      try {
        return await limiter.schedule(() => {
          // Given up on while it waited for its turn: no call is made.
          signal?.throwIfAborted();
          return options.client.send(
            new LookupEventsCommand({
              LookupAttributes: [{ AttributeKey: 'ResourceName', AttributeValue: resourceName }],
              StartTime: since,
              EndTime: until,
              MaxResults: 50,
              ...(nextToken ? { NextToken: nextToken } : {}),
            }),
            { abortSignal: signal },
          );
        });
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        const fail = (reason: string, retriable: boolean) =>
          new CloudTrailLookupError(options.account, options.region, resourceName, attempt, reason, retriable, {
            cause: err,
          });
        if (!isThrottling(err)) {
          const e = err as {
            name?: string;
            message?: string;
            $fault?: string;
            $metadata?: { httpStatusCode?: number };
          };
          // Refused (no permission, a bad parameter) is not worth retrying; unreachable or a 5xx is.
          const refused = e.$fault === 'client' && e.$metadata?.httpStatusCode !== undefined;
          throw fail(`${e.name ?? 'error'}${e.message && e.message !== e.name ? `: ${e.message}` : ''}`, !refused);
        }
        if (attempt >= maxAttempts) throw fail('still throttled', true);
        const delay = baseDelay * 2 ** (attempt - 1);
        await sleep(delay / 2 + Math.random() * (delay / 2));
      }
    }
  }

  return {
    async changesTo(resourceName, since, { signal } = {}) {
      const until = now();
      const result: ChangeHistoryResult = { events: [], unreadable: [], truncated: false };
      let nextToken: string | undefined;
      for (let pages = 0; ; pages++) {
        if (pages >= maxPages) {
          result.truncated = true;
          break;
        }
        const output = await page(resourceName, since, until, nextToken, signal);
        for (const record of output.Events ?? []) {
          try {
            if (!record.CloudTrailEvent) throw new Error('the record has no CloudTrailEvent');
            result.events.push(parseLookupRecord(record.CloudTrailEvent));
          } catch (err) {
            const reason = err instanceof ChangeEventError ? err.message : (err as Error).message;
            result.unreadable.push({ ...(record.EventId ? { eventId: record.EventId } : {}), reason });
          }
        }
        nextToken = output.NextToken;
        if (!nextToken) break;
      }
      return result;
    },
  };
}
