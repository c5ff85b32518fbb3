/**
 * The shapes of a cloud change event as AWS delivers it: the EventBridge "AWS API Call via CloudTrail"
 * event (push and SQS), and the `CloudTrailEvent` JSON text inside a CloudTrail LookupEvents record. Both
 * carry the same CloudTrail record (the EventBridge `detail`). Strict about the fields driftgate reads,
 * loose about everything else: AWS adds fields to CloudTrail records without notice.
 */
import { z } from 'zod';
import { type ConfigIssue, DriftgateError, formatConfigIssues } from '../errors.js';
import { formatPath, type PathSegment } from '../plan/paths.js';

/** CloudTrail writes `sessionCredentialFromConsole` as the string "true"; accept a boolean too. */
const StringBoolean = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

export const SessionIssuer = z.looseObject({
  type: z.string().optional(),
  principalId: z.string().optional(),
  arn: z.string().optional(),
  accountId: z.string().optional(),
  userName: z.string().optional(),
});
export type SessionIssuer = z.infer<typeof SessionIssuer>;

/**
 * Who made the call. `type` is one of IAMUser, AssumedRole, Root, FederatedUser, IdentityCenterUser,
 * SAMLUser, WebIdentityUser, AWSService, AWSAccount, Unknown; any other string passes (new types appear).
 */
export const UserIdentity = z.looseObject({
  type: z.string().min(1),
  principalId: z.string().optional(),
  arn: z.string().optional(),
  accountId: z.string().optional(),
  accessKeyId: z.string().optional(),
  userName: z.string().optional(),
  invokedBy: z.string().optional(),
  identityProvider: z.string().optional(),
  sessionContext: z
    .looseObject({
      sessionIssuer: SessionIssuer.optional(),
      attributes: z.looseObject({}).optional(),
    })
    .optional(),
  onBehalfOf: z.looseObject({ userId: z.string().optional(), identityStoreArn: z.string().optional() }).optional(),
});
export type UserIdentity = z.infer<typeof UserIdentity>;

const JsonObject = z.record(z.string(), z.unknown());

/** A CloudTrail record: the EventBridge event's `detail`, or LookupEvents' `CloudTrailEvent` parsed. */
export const CloudTrailRecord = z.looseObject({
  eventVersion: z.string().optional(),
  userIdentity: UserIdentity,
  eventTime: z.iso.datetime({ offset: true }),
  eventSource: z.string().min(1),
  eventName: z.string().min(1),
  awsRegion: z.string().min(1),
  sourceIPAddress: z.string().optional(),
  userAgent: z.string().optional(),
  requestParameters: JsonObject.nullable().optional(),
  responseElements: JsonObject.nullable().optional(),
  eventID: z.string().min(1),
  readOnly: z.boolean().optional(),
  resources: z
    .array(z.looseObject({ ARN: z.string().optional(), accountId: z.string().optional(), type: z.string().optional() }))
    .optional(),
  eventType: z.string().optional(),
  managementEvent: z.boolean().optional(),
  recipientAccountId: z.string().optional(),
  sessionCredentialFromConsole: StringBoolean.optional(),
  errorCode: z.string().optional(),
});
export type CloudTrailRecord = z.infer<typeof CloudTrailRecord>;

export const CLOUDTRAIL_DETAIL_TYPE = 'AWS API Call via CloudTrail';

/** The EventBridge envelope of a CloudTrail API call, as a rule on that detail-type delivers it. */
export const EventBridgeCloudTrailEvent = z.looseObject({
  version: z.string().optional(),
  id: z.string().optional(),
  'detail-type': z.literal(CLOUDTRAIL_DETAIL_TYPE, {
    error: `expected "${CLOUDTRAIL_DETAIL_TYPE}" (an EventBridge rule on CloudTrail API calls)`,
  }),
  source: z.string().regex(/^aws\./, 'expected an AWS service source such as "aws.s3"'),
  account: z.string().min(1),
  time: z.iso.datetime({ offset: true }),
  region: z.string().min(1),
  resources: z.array(z.string()).optional(),
  detail: CloudTrailRecord,
});
export type EventBridgeCloudTrailEvent = z.infer<typeof EventBridgeCloudTrailEvent>;

/** One change event in the provider-neutral envelope the rest of driftgate reads. */
export interface ChangeEvent {
  /** `eventbridge` (push or SQS) or `lookup` (CloudTrail LookupEvents, for drift a sweep found). */
  via: 'eventbridge' | 'lookup';
  account: string;
  region: string;
  record: CloudTrailRecord;
}

/** A change event that cannot be read: `issues` say which field and why, never the event's values. */
export class ChangeEventError extends DriftgateError {
  constructor(
    readonly source: string,
    readonly issues: ConfigIssue[],
  ) {
    super('CHANGE_EVENT_INVALID', formatConfigIssues(issues, undefined, `invalid ${source}:`));
  }
}

const MAX_ISSUES = 10;

function toIssues(error: z.ZodError, prefix: PathSegment[] = []): ConfigIssue[] {
  return error.issues.slice(0, MAX_ISSUES).map((issue) => ({
    path: formatPath([...prefix, ...issue.path.filter((s): s is PathSegment => typeof s !== 'symbol')]),
    message: issue.message,
  }));
}

/** An EventBridge event (the parsed JSON body of a push or an SQS message) as a change event. */
export function parseEventBridgeEvent(raw: unknown): ChangeEvent {
  const result = EventBridgeCloudTrailEvent.safeParse(raw);
  if (!result.success) throw new ChangeEventError('EventBridge CloudTrail event', toIssues(result.error));
  const event = result.data;
  return { via: 'eventbridge', account: event.account, region: event.region, record: event.detail };
}

/**
 * The `CloudTrailEvent` text of a LookupEvents record. It is JSON inside JSON; JSON.parse's own message
 * echoes the input, so only the position is kept.
 */
export function parseLookupRecord(cloudTrailEvent: string): ChangeEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(cloudTrailEvent);
  } catch (err) {
    const position = /position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
    throw new ChangeEventError('CloudTrailEvent', [
      { path: '', message: `not JSON${position ? ` (syntax error at character ${position})` : ''}` },
    ]);
  }
  const result = CloudTrailRecord.safeParse(raw);
  if (!result.success) throw new ChangeEventError('CloudTrailEvent', toIssues(result.error));
  const record = result.data;
  return {
    via: 'lookup',
    account: record.recipientAccountId ?? record.userIdentity.accountId ?? '',
    region: record.awsRegion,
    record,
  };
}

const LookupEnvelope = z.strictObject({
  via: z.literal('lookup'),
  account: z.string().max(64),
  region: z.string().max(64),
  record: CloudTrailRecord,
});

/** A change event a worker looked up in its pool's CloudTrail and sent on as it is (the agent API). */
export function parseLookedUpEvent(raw: unknown): ChangeEvent {
  const result = LookupEnvelope.safeParse(raw);
  if (!result.success) throw new ChangeEventError('looked-up event', toIssues(result.error));
  return result.data;
}
