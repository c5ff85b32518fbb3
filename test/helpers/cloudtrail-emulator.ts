/**
 * A CloudTrail LookupEvents stand-in on a real loopback port, speaking the AWS JSON 1.1 protocol the SDK
 * uses (`X-Amz-Target: CloudTrail_20131101.LookupEvents`, as SDK 3.1136 sends it; the service model's full
 * name `com.amazonaws.cloudtrail.v20131101.CloudTrail_20131101.LookupEvents` is taken too; timestamps as
 * epoch seconds). It answers what CloudTrail answers: events newest first, filtered by one lookup
 * attribute (ResourceName, EventName or Username) and by StartTime/EndTime, in pages of at most
 * MaxResults (50) with an opaque NextToken; and it can answer ThrottlingException to the next calls, or
 * hold its answers until the test lets them go (a lookup under way at a moment the test chooses).
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readRaw } from './slack-emulator/read-body.js';

const TARGET_PREFIX = 'CloudTrail_20131101.';
const MODEL_NAMESPACE = 'com.amazonaws.cloudtrail.v20131101.';

/** A CloudTrail record as the tests write it: the EventBridge `detail` of the fixtures. */
export type TrailRecord = Record<string, unknown> & { eventTime: string; eventName: string; eventID: string };

export interface StoredEvent {
  record: TrailRecord;
  /** What LookupEvents' ResourceName matches; by default the record's resources (`defaultResourceNames`). */
  resourceNames: string[];
}

export interface LookupCall {
  target: string;
  body: Record<string, unknown>;
  status: number;
  /** Whether the request carried a SigV4 Authorization header. */
  signed: boolean;
  /** The region the request was signed for (its credential scope): where the client asked. */
  region?: string;
  at: number;
}

export interface CloudTrailEmulator {
  /** For the client's `endpoint` (or AWS_ENDPOINT_URL_CLOUDTRAIL). */
  readonly endpoint: string;
  add(record: TrailRecord, resourceNames?: string[]): void;
  /** The next `n` calls answer 400 ThrottlingException, as CloudTrail does over 2 calls a second. */
  throttleNext(n: number): void;
  /** The next `n` calls answer this error, e.g. `AccessDeniedException` 400 or `InternalFailure` 500. */
  failNext(n: number, error: { type: string; status: number }): void;
  /** Calls wait for `release()` before they are answered; `held()` counts those waiting. */
  hold(): void;
  held(): number;
  release(): void;
  calls(): LookupCall[];
  close(): Promise<void>;
}

/** As CloudTrail records them: S3 resources by their name (`bucket`, `bucket/key`), others by their ARN. */
function defaultResourceNames(record: TrailRecord): string[] {
  const names = new Set<string>();
  for (const r of (record.resources as { ARN?: string }[] | undefined) ?? [])
    if (r.ARN) names.add(r.ARN.replace(/^arn:aws[a-z-]*:s3:::/, ''));
  const bucket = (record.requestParameters as { bucketName?: unknown } | undefined)?.bucketName;
  if (typeof bucket === 'string') names.add(bucket);
  return [...names];
}

function lookupResource(stored: StoredEvent): { ResourceType?: string; ResourceName: string }[] {
  return stored.resourceNames.map((name) => ({ ResourceName: name }));
}

function toApiEvent(stored: StoredEvent): Record<string, unknown> {
  const { record } = stored;
  const identity = (record.userIdentity ?? {}) as { userName?: string; arn?: string; accessKeyId?: string };
  return {
    EventId: record.eventID,
    EventName: record.eventName,
    // CloudTrail's API has ReadOnly as a string.
    ReadOnly: String(record.readOnly ?? false),
    AccessKeyId: identity.accessKeyId,
    EventTime: Date.parse(record.eventTime) / 1000,
    EventSource: record.eventSource,
    Username: identity.userName ?? identity.arn?.split('/').pop(),
    Resources: lookupResource(stored),
    CloudTrailEvent: JSON.stringify(record),
  };
}

class Refusal extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

function filterEvents(events: StoredEvent[], body: Record<string, unknown>): StoredEvent[] {
  const attributes = (body.LookupAttributes as { AttributeKey?: string; AttributeValue?: string }[] | undefined) ?? [];
  if (attributes.length > 1)
    throw new Refusal('InvalidLookupAttributesException', 'You cannot specify more than one lookup attribute.');
  const start = typeof body.StartTime === 'number' ? body.StartTime * 1000 : Number.NEGATIVE_INFINITY;
  const end = typeof body.EndTime === 'number' ? body.EndTime * 1000 : Number.POSITIVE_INFINITY;
  if (start > end) throw new Refusal('InvalidTimeRangeException', 'Start time must be before end time.');
  const attribute = attributes[0];
  const matches = (e: StoredEvent) => {
    if (!attribute) return true;
    const value = attribute.AttributeValue;
    switch (attribute.AttributeKey) {
      case 'ResourceName':
        return e.resourceNames.includes(value ?? '');
      case 'EventName':
        return e.record.eventName === value;
      case 'Username':
        return toApiEvent(e).Username === value;
      default:
        throw new Refusal('InvalidLookupAttributesException', `Unsupported attribute key ${attribute.AttributeKey}`);
    }
  };
  return events
    .filter((e) => {
      const at = Date.parse(e.record.eventTime);
      return at >= start && at <= end && matches(e);
    })
    .sort((a, b) => Date.parse(b.record.eventTime) - Date.parse(a.record.eventTime));
}

export async function startCloudTrailEmulator(): Promise<CloudTrailEmulator> {
  const events: StoredEvent[] = [];
  const calls: LookupCall[] = [];
  /** NextToken -> the query it continues and where; CloudTrail refuses a token used with another query. */
  const tokens = new Map<string, { query: string; offset: number }>();
  const script: { type: string; status: number; message: string }[] = [];
  let tokenCount = 0;
  let holding: { released: Promise<void>; release: () => void; waiting: number } | undefined;

  const answer = (res: ServerResponse, call: LookupCall, status: number, body: unknown) => {
    call.status = status;
    calls.push(call);
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, call: LookupCall, type: string, message: string) =>
    answer(res, call, 400, { __type: type, message });

  const server = createServer((req, res) => {
    void readRaw(req).then(async (raw) => {
      const held = holding;
      if (held) {
        held.waiting++;
        await held.released;
        held.waiting--;
      }
      const target = String(req.headers['x-amz-target'] ?? '').replace(MODEL_NAMESPACE, '');
      let body: Record<string, unknown> = {};
      try {
        body = raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {};
      } catch {
        body = {};
      }
      const call: LookupCall = {
        target,
        body,
        status: 0,
        signed: String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256 '),
        at: Date.now(),
      };
      const scope = /Credential=[^/]+\/\d{8}\/([a-z0-9-]+)\//.exec(String(req.headers.authorization ?? ''));
      if (scope) call.region = scope[1];
      if (req.method !== 'POST' || !target.startsWith(TARGET_PREFIX))
        return refuse(res, call, 'UnknownOperationException', `unknown target ${target}`);
      if (!call.signed) return refuse(res, call, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
      const scripted = script.shift();
      if (scripted) return answer(res, call, scripted.status, { __type: scripted.type, message: scripted.message });
      if (target !== `${TARGET_PREFIX}LookupEvents`)
        return refuse(res, call, 'UnknownOperationException', `${target} is not emulated`);
      const max = typeof body.MaxResults === 'number' ? body.MaxResults : 50;
      if (max < 1 || max > 50)
        return refuse(res, call, 'InvalidMaxResultsException', 'MaxResults must be between 1 and 50.');
      try {
        const found = filterEvents(events, body);
        const query = JSON.stringify({ ...body, NextToken: undefined });
        let offset = 0;
        if (typeof body.NextToken === 'string') {
          const token = tokens.get(body.NextToken);
          if (!token || token.query !== query)
            return refuse(res, call, 'InvalidNextTokenException', 'Invalid NextToken.');
          offset = token.offset;
        }
        const page = found.slice(offset, offset + max);
        const next = offset + max < found.length ? `token-${++tokenCount}` : undefined;
        if (next) tokens.set(next, { query, offset: offset + max });
        return answer(res, call, 200, { Events: page.map(toApiEvent), ...(next ? { NextToken: next } : {}) });
      } catch (err) {
        if (err instanceof Refusal) return refuse(res, call, err.type, err.message);
        throw err;
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    add(record, resourceNames) {
      events.push({ record, resourceNames: resourceNames ?? defaultResourceNames(record) });
    },
    throttleNext(n) {
      for (let i = 0; i < n; i++) script.push({ type: 'ThrottlingException', status: 400, message: 'Rate exceeded' });
    },
    failNext(n, { type, status }) {
      for (let i = 0; i < n; i++) script.push({ type, status, message: `scripted ${type}` });
    },
    hold() {
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      holding = { released, release, waiting: 0 };
    },
    held: () => holding?.waiting ?? 0,
    release() {
      holding?.release();
      holding = undefined;
    },
    calls: () => [...calls],
    async close() {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
