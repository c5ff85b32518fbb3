import { describe, expect, it } from 'vitest';
import {
  buildResolveEvent,
  buildTriggerEvent,
  PAGE_LIMITS,
  PAGE_MAX_RESOURCES,
  PAGE_MAX_WHY,
  pageDedupKey,
  withSlackLink,
  type TriggerInput,
} from '../../../src/domain/oncall/page-event.js';
import type { DriftCauses } from '../../../src/domain/drift-causes/model.js';
import { analyzePlan } from '../../../src/domain/plan/analyze.js';
import type { PlanAnalysis } from '../../../src/domain/plan/model.js';
import { parsePlanJson } from '../../../src/domain/plan/schema.js';
import { eventProblems } from '../../helpers/pagerduty-receiver.js';
import {
  ALL_FIXTURE_SECRETS,
  planText,
  readFixture,
  REAL_FIXTURES,
  resourceChange,
} from '../../domain/plan/plan-builder.js';

const counts = (c: Partial<PlanAnalysis['counts']>) => ({ create: 0, update: 0, delete: 0, replace: 0, read: 0, ...c });
const run = { id: 'r_01HZX3', updatedAt: new Date('2025-01-01T10:00:00Z') };
const change = (address: string, action: 'update' | 'delete' | 'create' = 'update') => ({ address, action });
const KEY = 'k'.repeat(32);

function trigger(extra: Partial<TriggerInput> = {}) {
  return buildTriggerEvent({
    stack: { name: 'prod/networking', environment: 'prod' },
    severity: 'critical',
    run,
    analysis: {
      counts: counts({ update: 2, delete: 1 }),
      fingerprint: 'f'.repeat(64),
      changes: [change('aws_vpc.main'), change('aws_subnet.a'), change('aws_route.r', 'delete')],
    },
    ...extra,
  });
}

function payloadOf(event: ReturnType<typeof buildTriggerEvent>) {
  if (event.event_action !== 'trigger') throw new Error('not a trigger');
  return event.payload;
}

describe('buildTriggerEvent', () => {
  it('names who changed the drift and the call they made, never what they set', () => {
    const at = new Date('2025-01-01T09:30:00Z');
    const changes = Array.from({ length: 7 }, (_, i) => ({
      principal: { display: `alice-${i} (IAM user)` },
      eventName: 'PutBucketPolicy',
      at,
      // What the rest of a change holds stays out of the page.
      requestParameters: { policy: 'secret-policy-text' },
    }));
    const details = payloadOf(trigger({ changes })).custom_details;
    expect(details.changed_by).toHaveLength(5);
    expect(details.changed_by![0]).toEqual({
      principal: 'alice-0 (IAM user)',
      event_name: 'PutBucketPolicy',
      at: '2025-01-01T09:30:00.000Z',
    });
    expect(JSON.stringify(details)).not.toContain('secret-policy-text');
    expect(payloadOf(trigger()).custom_details).not.toHaveProperty('changed_by');
  });

  it('says why the resources differ, one line per set of causes, never a value', () => {
    const state = {
      kind: 'state_outside' as const,
      from: { serial: 41, lineage: 'L1' },
      to: { serial: 43, lineage: 'L1' },
      since: 'clean_check' as const,
      writer: { who: 'bob (IAM user)', how: 'cli' as const, eventName: 'PutObject', at: '2025-01-01T09:40:00.000Z' },
    };
    const causes: DriftCauses = {
      'aws_vpc.main': [
        {
          kind: 'out_of_band',
          who: 'alice',
          how: 'console',
          eventName: 'ModifyVpcAttribute',
          at: '2025-01-01T09:30:00Z',
        },
        state,
      ],
      ...Object.fromEntries(['aws_subnet.a', 'aws_subnet.b', 'aws_subnet.c', 'aws_route.r'].map((a) => [a, [state]])),
      'aws_db_instance.db': [{ kind: 'input', name: 'db_password', change: 'changed', source: 'env', since: 'apply' }],
    };
    const analysis = { counts: counts({ update: 6 }), fingerprint: 'f'.repeat(64), changes: [], causes };
    const details = payloadOf(trigger({ analysis })).custom_details;
    expect(details.why).toEqual([
      'aws_vpc.main: changed in the console by alice at 2025-01-01T09:30:00Z (ModifyVpcAttribute); the state was written outside driftgate with the AWS CLI by bob (IAM user) at 2025-01-01T09:40:00.000Z (PutObject): serial 41 → 43, no driftgate apply in between',
      'aws_subnet.a, aws_subnet.b, aws_subnet.c and 1 more: the state was written outside driftgate with the AWS CLI by bob (IAM user) at 2025-01-01T09:40:00.000Z (PutObject): serial 41 → 43, no driftgate apply in between',
      "aws_db_instance.db: var.db_password changed in the stack's env (TF_VAR_db_password) since the last apply",
    ]);
    expect(details).not.toHaveProperty('why_omitted');
    expect(eventProblems({ ...trigger({ analysis }), routing_key: KEY })).toEqual([]);
    expect(payloadOf(trigger()).custom_details).not.toHaveProperty('why');

    // Many resources with causes of their own: the first lines, each cut short, and the rest counted.
    const long = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [
        `aws_instance.web[${i}]`,
        [{ kind: 'unknown' as const, why: `${'x'.repeat(400)} ${i}` }],
      ]),
    );
    const cut = payloadOf(trigger({ analysis: { ...analysis, causes: long } })).custom_details;
    expect(cut.why).toHaveLength(PAGE_MAX_WHY.lines);
    for (const line of cut.why!) expect(line.length).toBeLessThanOrEqual(PAGE_MAX_WHY.line);
    expect(cut.why![0]!.startsWith('aws_instance.web[0]: why unknown: xxx')).toBe(true);
    expect(cut.why_omitted).toBe(12 - PAGE_MAX_WHY.lines);
  });

  it('pages a stack with counts, ids and where to look, and nothing else', () => {
    const event = withSlackLink(trigger({ firstSeenAt: new Date('2025-01-01T09:00:00Z') }), {
      message: 'https://acme.slack.com/archives/C1/p1735725600000100',
    });
    expect(event).toEqual({
      event_action: 'trigger',
      dedup_key: 'driftgate:prod/networking',
      payload: {
        summary: 'Drift in prod/networking: ~2 -1 (run r_01HZX3)',
        source: 'driftgate',
        severity: 'critical',
        timestamp: '2025-01-01T10:00:00.000Z',
        component: 'prod/networking',
        group: 'prod',
        class: 'drift',
        custom_details: {
          counts: counts({ update: 2, delete: 1 }),
          run_id: 'r_01HZX3',
          fingerprint: 'ffffffffffff',
          first_seen: '2025-01-01T09:00:00.000Z',
          slack_message: 'https://acme.slack.com/archives/C1/p1735725600000100',
          resources: ['update aws_vpc.main', 'update aws_subnet.a', 'delete aws_route.r'],
        },
      },
      client: 'driftgate',
      client_url: 'https://acme.slack.com/archives/C1/p1735725600000100',
    });
    expect(eventProblems({ ...event, routing_key: KEY })).toEqual([]);
  });

  const many = Array.from({ length: 45 }, (_, i) => change(`aws_instance.web[${i}]`));
  it.each([
    {
      name: 'no Slack link yet, no first seen',
      input: {},
      summary: 'Drift in prod/networking: ~2 -1 (run r_01HZX3)',
      details: { resources: 3 },
    },
    {
      name: 'a stack without environment has no group',
      input: { stack: { name: 'shared/dns' } },
      summary: 'Drift in shared/dns: ~2 -1 (run r_01HZX3)',
      group: undefined,
    },
    {
      name: 'only creates',
      input: { analysis: { counts: counts({ create: 4 }), fingerprint: 'a'.repeat(64), changes: [] } },
      summary: 'Drift in prod/networking: +4 (run r_01HZX3)',
    },
    {
      name: 'more resources than listed are counted',
      input: { analysis: { counts: counts({ update: 45 }), fingerprint: 'a'.repeat(64), changes: many } },
      summary: 'Drift in prod/networking: ~45 (run r_01HZX3)',
      details: { resources: PAGE_MAX_RESOURCES, omitted: 25 },
    },
  ])('$name', ({ input, summary, details, ...rest }) => {
    const payload = payloadOf(trigger(input as Partial<TriggerInput>));
    expect(payload.summary).toBe(summary);
    if ('group' in rest) expect(payload).not.toHaveProperty('group');
    if (details) {
      expect(payload.custom_details.resources).toHaveLength(details.resources);
      expect(payload.custom_details.resources_omitted).toBe('omitted' in details ? details.omitted : undefined);
    }
    expect(payload.custom_details).not.toHaveProperty('slack_message');
    expect(payload.custom_details).not.toHaveProperty('first_seen');
  });

  it('cuts a 2,000-character stack name to the summary limit, keeping both ends, the counts and the run id', () => {
    const long = longName('a');
    const event = trigger({ stack: { name: long, environment: 'prod' } });
    const { summary, component } = payloadOf(event);
    expect(summary).toHaveLength(PAGE_LIMITS.summary);
    expect(summary.startsWith('Drift in prod/aaa')).toBe(true);
    expect(summary).toContain('a…a');
    expect(summary.endsWith('a: ~2 -1 (run r_01HZX3)')).toBe(true);
    expect(component).toBe(long);
    expect(event.dedup_key.length).toBeLessThanOrEqual(PAGE_LIMITS.dedupKey);
    expect(eventProblems({ ...event, routing_key: KEY })).toEqual([]);
  });

  it('never carries a before or after value of the plan, sensitive or not', () => {
    const plan = planText({
      resource_changes: [
        resourceChange({
          address: 'aws_security_group.web',
          actions: ['update'],
          before: {
            ingress: [{ cidr: '10.1.2.0/24' }],
            description: 'plain-before-value-1',
            tags: { owner: 'alice@example.com' },
          },
          after: {
            ingress: [{ cidr: '0.0.0.0/0' }],
            description: 'plain-after-value-2',
            tags: { owner: 'bob@example.com' },
          },
        }),
        resourceChange({
          address: 'aws_db_instance.main',
          actions: ['update'],
          before: { password: 'sensitive-before-3' },
          after: { password: 'sensitive-after-4' },
          before_sensitive: { password: true },
          after_sensitive: { password: true },
        }),
      ],
      resource_drift: [
        resourceChange({
          address: 'aws_security_group.web',
          actions: ['update'],
          before: { description: 'drift-before-value-5' },
          after: { description: 'drift-after-value-6' },
        }),
      ],
    });
    const cases: { analysis: PlanAnalysis; values: string[] }[] = [
      {
        analysis: analyzePlan(parsePlanJson(plan)).analysis,
        values: [
          '10.1.2.0',
          '0.0.0.0/0',
          'plain-before-value-1',
          'plain-after-value-2',
          'alice@example.com',
          'bob@example.com',
          'sensitive-before-3',
          'sensitive-after-4',
          'drift-before-value-5',
          'drift-after-value-6',
        ],
      },
      // Real terraform plans: every string value in them (the fixtures' secrets among them).
      ...REAL_FIXTURES.map((name) => {
        const { analysis } = analyzePlan(parsePlanJson(readFixture(name)));
        const addresses = analysis.changes.map((c) => c.address).join('\n');
        const sides = analysis.changes.flatMap((c) => c.attributes.flatMap((a) => [a.before, a.after]));
        const values = [
          ...ALL_FIXTURE_SECRETS,
          ...stringsIn(sides.map((side) => (side.kind === 'value' ? side.value : undefined))),
        ];
        return {
          analysis,
          values: values.filter((v) => v.length >= 4 && !addresses.includes(v) && !'driftgate'.includes(v)),
        };
      }),
    ];
    expect(cases.every((c) => c.values.length > 0)).toBe(true);
    for (const { analysis, values } of cases) {
      const text = JSON.stringify(trigger({ analysis }));
      for (const value of values)
        expect(text.includes(value), `value ${JSON.stringify(value)} reached the page`).toBe(false);
    }
  });
});

describe('withSlackLink', () => {
  it('names the channel while the message is not posted, and leaves the incident without a client_url', () => {
    const event = withSlackLink(trigger(), { channel: 'C0ALERTS' });
    expect(payloadOf(event).custom_details).toMatchObject({ slack_channel: 'C0ALERTS', run_id: 'r_01HZX3' });
    expect(payloadOf(event).custom_details).not.toHaveProperty('slack_message');
    expect(event).not.toHaveProperty('client_url');
    expect(eventProblems({ ...event, routing_key: KEY })).toEqual([]);
  });

  it.each([
    { name: 'no link', event: trigger(), link: undefined },
    {
      name: 'a resolve',
      event: buildResolveEvent({ name: 'prod/networking' }),
      link: { message: 'https://acme.slack.com/archives/C1/p1' },
    },
  ])('leaves $name as it is', ({ event, link }) => {
    expect(withSlackLink(event, link)).toEqual(event);
  });
});

describe('buildResolveEvent and pageDedupKey', () => {
  it.each([
    { stack: 'prod/networking', key: 'driftgate:prod/networking' },
    { stack: 'a'.repeat(245), key: `driftgate:${'a'.repeat(245)}` },
    { stack: 'a'.repeat(246), key: expect.stringMatching(/^driftgate:sha256:[0-9a-f]{64}$/) },
  ])('$stack.length characters -> a stable key within 255', ({ stack, key }) => {
    expect(pageDedupKey(stack)).toEqual(key);
    expect(pageDedupKey(stack)).toBe(pageDedupKey(stack));
    expect(pageDedupKey(stack).length).toBeLessThanOrEqual(PAGE_LIMITS.dedupKey);
  });

  it('resolves with the dedup_key its trigger used, and only that', () => {
    const resolve = buildResolveEvent({ name: longName('b') });
    expect(resolve).toEqual({
      event_action: 'resolve',
      dedup_key: trigger({ stack: { name: longName('b') } }).dedup_key,
    });
    expect(eventProblems({ ...resolve, routing_key: KEY })).toEqual([]);
  });
});

/** A 2,000-character stack name. */
function longName(letter: string): string {
  return `prod/${letter.repeat(1995)}`;
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}
