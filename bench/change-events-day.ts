/**
 * Benchmark: the plans a simulated day costs, with change events against an hourly sweep. 300 stacks,
 * 20 console sessions (2 to 8 write calls each within 90 s, on one stack's resources), and the noise
 * an account makes all day: read-only calls, an autoscaler's writes, changes to resources no stack
 * manages. Every event goes through the real intake (zod, classify, index, debounce) on a virtual clock;
 * the checks counted are the debouncer's. Events plus a daily safety sweep are set against 24 sweeps.
 */
import { createClassifier } from '../src/domain/change-events/classify.js';
import { createCheckDebouncer, type DebounceTimer } from '../src/domain/change-events/debounce.js';
import { type MatchedChange, takeChangeEvent } from '../src/domain/change-events/intake.js';
import { ResourceIndex } from '../src/domain/change-events/resource-index.js';
import { parseEventBridgeEvent } from '../src/domain/change-events/schema.js';

const STACKS = 300;
const BUCKETS_PER_STACK = 10;
const SESSIONS = 20;
const READ_ONLY = 20_000;
const AUTOMATION = 2_000;
const UNMANAGED = 1_000;
const DAY_MS = 24 * 3600 * 1000;
const DEBOUNCE_MS = 120_000;
const ACCOUNT = '111122223333';

/** A seeded generator: the same day every run. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

function event(at: number, bucket: string, principalArn: string, eventName: string, readOnly: boolean) {
  return {
    'detail-type': 'AWS API Call via CloudTrail',
    source: 'aws.s3',
    account: ACCOUNT,
    time: new Date(at).toISOString(),
    region: 'eu-west-1',
    detail: {
      userIdentity: {
        type: 'AssumedRole',
        arn: principalArn,
        accountId: ACCOUNT,
        // A session names the role it was issued from: what config's ARN globs name.
        sessionContext: { sessionIssuer: { type: 'Role', arn: issuerOf(principalArn) } },
      },
      eventTime: new Date(at).toISOString(),
      eventSource: 's3.amazonaws.com',
      eventName,
      awsRegion: 'eu-west-1',
      eventID: `e-${at}-${bucket}`,
      readOnly,
      requestParameters: { bucketName: bucket },
      resources: [{ ARN: `arn:aws:s3:::${bucket}` }],
    },
  };
}

/** `arn:aws:sts::1:assumed-role/Admin/alice` was issued from `arn:aws:iam::1:role/Admin`. */
function issuerOf(sessionArn: string): string {
  const [, account, role] = /^arn:aws:sts::(\d+):assumed-role\/([^/]+)\//.exec(sessionArn) ?? [];
  return `arn:aws:iam::${account}:role/${role}`;
}

/** A virtual clock: timers fire when the simulation moves past them. */
function virtualTimer() {
  const timers = new Map<number, { at: number; fn: () => void }>();
  let now = 0;
  let id = 0;
  const timer: DebounceTimer = {
    setTimeout(fn, ms) {
      timers.set(++id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (handle) => timers.delete(handle as number),
  };
  const advance = (to: number) => {
    for (;;) {
      const next = [...timers].filter(([, t]) => t.at <= to).sort((a, b) => a[1].at - b[1].at)[0];
      if (!next) break;
      timers.delete(next[0]);
      now = next[1].at;
      next[1].fn();
    }
    now = to;
  };
  return { timer, advance };
}

export function simulateDay(): { events: number; checks: number; sessions: number } {
  const rand = random(14);
  const index = new ResourceIndex();
  for (let s = 0; s < STACKS; s++)
    index.replaceStack(
      `stack-${s}`,
      Array.from({ length: BUCKETS_PER_STACK }, (_, b) => ({
        address: `aws_s3_bucket.b${b}`,
        identifiers: [`bucket-${s}-${b}`, `arn:aws:s3:::bucket-${s}-${b}`],
      })),
    );
  const bucket = () => `bucket-${Math.floor(rand() * STACKS)}-${Math.floor(rand() * BUCKETS_PER_STACK)}`;
  const raw: { at: number; body: unknown }[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const start = rand() * (DAY_MS - 120_000);
    const stack = Math.floor(rand() * STACKS);
    const clicks = 2 + Math.floor(rand() * 7);
    for (let c = 0; c < clicks; c++) {
      const at = Math.round(start + rand() * 90_000);
      const target = `bucket-${stack}-${Math.floor(rand() * BUCKETS_PER_STACK)}`;
      raw.push({
        at,
        body: event(at, target, `arn:aws:sts::${ACCOUNT}:assumed-role/Admin/person-${i}`, 'PutBucketTagging', false),
      });
    }
  }
  for (let i = 0; i < READ_ONLY; i++) {
    const at = Math.round(rand() * DAY_MS);
    raw.push({
      at,
      body: event(at, bucket(), `arn:aws:sts::${ACCOUNT}:assumed-role/App/app`, 'GetBucketTagging', true),
    });
  }
  for (let i = 0; i < AUTOMATION; i++) {
    const at = Math.round(rand() * DAY_MS);
    raw.push({
      at,
      body: event(at, bucket(), `arn:aws:sts::${ACCOUNT}:assumed-role/karpenter-node/k`, 'PutBucketTagging', false),
    });
  }
  for (let i = 0; i < UNMANAGED; i++) {
    const at = Math.round(rand() * DAY_MS);
    raw.push({
      at,
      body: event(
        at,
        `unmanaged-${i}`,
        `arn:aws:sts::${ACCOUNT}:assumed-role/Admin/someone`,
        'PutBucketTagging',
        false,
      ),
    });
  }
  raw.sort((a, b) => a.at - b.at);

  const { timer, advance } = virtualTimer();
  let checks = 0;
  const debouncer = createCheckDebouncer<MatchedChange>({ timer, windowMs: DEBOUNCE_MS, onDue: () => checks++ });
  const classify = createClassifier({
    ownIdentities: [`arn:aws:iam::${ACCOUNT}:role/driftgate-*`],
    automation: [{ name: 'autoscaler', arn: `arn:aws:iam::${ACCOUNT}:role/karpenter-*` }],
  });
  for (const { at, body } of raw) {
    advance(at);
    takeChangeEvent({ classify, index, debouncer }, parseEventBridgeEvent(JSON.parse(JSON.stringify(body))));
  }
  advance(DAY_MS + DEBOUNCE_MS);
  return { events: raw.length, checks, sessions: SESSIONS };
}

export function changeEventsDayMarkdown(): string {
  const day = simulateDay();
  const withEvents = day.checks + STACKS;
  const hourly = STACKS * 24;
  return [
    `## Change events: plans for a simulated day of ${STACKS} stacks`,
    '',
    `${day.events.toLocaleString('en-US')} events through the real intake on a virtual clock: ${day.sessions} console sessions (2–8 write calls each within 90 s), ${READ_ONLY.toLocaleString('en-US')} read-only calls, ${AUTOMATION.toLocaleString('en-US')} autoscaler writes (an \`automation\` rule), ${UNMANAGED.toLocaleString('en-US')} changes to buckets no stack manages; debounce ${DEBOUNCE_MS / 60_000} min.`,
    '',
    '| | plans a day | a console change is seen after |',
    '| --- | ---: | --- |',
    `| hourly sweep | ${hourly.toLocaleString('en-US')} | 30 min on average (up to 60), plus the plan |`,
    `| change events + a daily safety sweep | ${withEvents.toLocaleString('en-US')} (${day.checks} event checks + ${STACKS}) | the debounce, plus the plan |`,
    '',
    `${(hourly / withEvents).toFixed(1)}× fewer plans.`,
    '',
  ].join('\n');
}
