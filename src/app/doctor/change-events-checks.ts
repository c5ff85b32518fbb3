import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import {
  createCloudTrailClient,
  createCloudTrailLookup,
  createLookupLimiter,
} from '../../adapters/aws/cloudtrail-lookup.js';
import { createSqsClient } from '../../adapters/aws/sqs-change-events.js';
import { type DriftgateConfig, sqsQueueRegion } from '../../config/schema.js';
import { awsCredentials, cloudTrailRegion, PUSH_SECRET_MIN_LENGTH, workerCloudTrailRegion } from '../change-events.js';
import { type CheckResult, fail, ok, reason, skip } from './check-result.js';

/** The push secret is set, and long enough for serve to start with it (`PUSH_SECRET_MIN_LENGTH`). */
function checkPushSecret(secretEnv: string, header: string, secret: string | undefined): CheckResult {
  if (!secret)
    return fail(
      'change events push',
      `${secretEnv} (changeEvents.secretEnv) is not set`,
      `set ${secretEnv} to the secret the EventBridge connection sends in ${header}`,
    );
  if (secret.length < PUSH_SECRET_MIN_LENGTH)
    return fail(
      'change events push',
      `${secretEnv} (changeEvents.secretEnv) holds ${secret.length} characters, fewer than ${PUSH_SECRET_MIN_LENGTH}: serve refuses it`,
      `set ${secretEnv} and the EventBridge connection's API key to a random secret of ${PUSH_SECRET_MIN_LENGTH} characters or more (openssl rand -hex 32)`,
    );
  return ok('change events push', `${secretEnv} set: POST /events/aws takes events carrying it`);
}

/** A name no resource has: the lookup proves the permission and the endpoint, and finds nothing. */
const PROBE_RESOURCE = 'driftgate-doctor-probe';

/**
 * Change events, checked from where `doctor` runs: the push endpoint's secret is in the environment, the SQS
 * queue answers with these credentials, and CloudTrail answers a lookup. With workers, CloudTrail is
 * asked by each pool's workers with their own credentials: checked by `doctor --pool` where they run (in
 * `cloudTrail.region`, else their AWS_REGION), and the receivers are the control plane's.
 */
export async function checkChangeEvents(
  config: DriftgateConfig,
  env: Record<string, string | undefined>,
  options: { pool?: string } = {},
): Promise<CheckResult[]> {
  const events = config.changeEvents;
  if (!events) return [];
  if (options.pool) {
    if (!events.cloudTrail.lookup) return [skip('cloudtrail', 'lookups are off (changeEvents.cloudTrail.lookup)')];
    const region = workerCloudTrailRegion(events, env);
    return [
      region
        ? await checkCloudTrail(region, env)
        : fail(
            'cloudtrail',
            `no region to ask CloudTrail in for pool ${options.pool}`,
            "set AWS_REGION in this worker's environment (its pool's region), or changeEvents.cloudTrail.region",
          ),
    ];
  }
  const out: CheckResult[] = [];
  if (events.secretEnv) out.push(checkPushSecret(events.secretEnv, events.secretHeader, env[events.secretEnv]));
  if (events.sqs) out.push(await checkQueue(events.sqs, env));
  if (!events.cloudTrail.lookup) out.push(skip('cloudtrail', 'lookups are off (changeEvents.cloudTrail.lookup)'));
  else if (config.runners?.type === 'workers')
    out.push(
      skip('cloudtrail', "asked by each pool's workers with their credentials: run `driftgate doctor --pool P` there"),
    );
  else out.push(await checkCloudTrail(cloudTrailRegion(events)!, env));
  return out;
}

async function checkQueue(
  sqs: NonNullable<NonNullable<DriftgateConfig['changeEvents']>['sqs']>,
  env: Record<string, string | undefined>,
): Promise<CheckResult> {
  const client = createSqsClient({ region: sqs.region ?? sqsQueueRegion(sqs.queueUrl)!, env, ...awsCredentials(env) });
  try {
    const answer = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: sqs.queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    const waiting = answer.Attributes?.ApproximateNumberOfMessages ?? '?';
    return ok('change events queue', `${sqs.queueUrl} answers; events waiting: ${waiting}`);
  } catch (err) {
    return fail(
      'change events queue',
      `${sqs.queueUrl}: ${reason(err)}`,
      "check changeEvents.sqs.queueUrl, and allow driftgate's credentials sqs:ReceiveMessage, sqs:DeleteMessage and sqs:GetQueueAttributes on it",
    );
  } finally {
    client.destroy();
  }
}

async function checkCloudTrail(region: string, env: Record<string, string | undefined>): Promise<CheckResult> {
  const client = createCloudTrailClient({ region, env, ...awsCredentials(env) });
  const lookup = createCloudTrailLookup({
    client,
    account: 'doctor',
    region,
    limiter: createLookupLimiter(),
    maxAttempts: 2,
  });
  try {
    await lookup.changesTo(PROBE_RESOURCE, new Date(Date.now() - 3600_000));
    return ok('cloudtrail', `LookupEvents answers in ${region}`);
  } catch (err) {
    return fail(
      'cloudtrail',
      `LookupEvents in ${region}: ${reason(err)}`,
      "allow driftgate's credentials cloudtrail:LookupEvents, or set changeEvents.cloudTrail.region (or lookup: false)",
    );
  } finally {
    client.destroy();
  }
}
