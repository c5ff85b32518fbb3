/**
 * Structural diffs of JSON-encoded attributes: the domain function on policy and container-definition
 * documents, and the analysis of a plan shaped like the AWS provider's (aws-json-attributes.json: an IAM
 * policy edited in the console, a bucket policy read back in another form, a task definition's containers,
 * an inline policy marked sensitive).
 */
import { describe, expect, it } from 'vitest';
import { analyzePlan } from '../../../src/domain/plan/analyze.js';
import { diffJsonStrings, MAX_JSON_CHANGES, parseJsonDocument } from '../../../src/domain/plan/json-diff.js';
import type { AttributeChange, JsonChange, PlanAnalysis } from '../../../src/domain/plan/model.js';
import { createRedactor } from '../../../src/domain/plan/redact.js';
import { renderPlanText } from '../../../src/domain/plan/render-text.js';
import { formatJsonChange } from '../../../src/domain/plan/render-value.js';
import { parsePlanJson } from '../../../src/domain/plan/schema.js';
import { makePlan, readFixture, resourceChange } from './plan-builder.js';

const none = createRedactor([]);
const json = (value: unknown) => JSON.stringify(value);
const lines = (changes: readonly JsonChange[]) => changes.map(formatJsonChange);

function policy(...statements: Record<string, unknown>[]): string {
  return json({ Version: '2012-10-17', Statement: statements });
}

const READ = { Sid: 'Read', Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/*' };

describe('diffJsonStrings', () => {
  it.each([
    ['a plain string', 'hello', '{}'],
    ['a number', '42', '{}'],
    ['broken JSON', '{"a":', '{"a":1}'],
    ['an object against an array', '{"a":1}', '[1]'],
  ])('gives nothing for %s: the attribute stays a string change', (_name, before, after) => {
    expect(diffJsonStrings(before, after, none)).toBeUndefined();
  });

  it('keys added, removed and changed, with nested paths', () => {
    const diff = diffJsonStrings(
      json({ a: 1, nested: { keep: true, old: 'x', deeper: { n: 1 } } }),
      json({ a: 2, nested: { keep: true, new: 'y', deeper: { n: 2 } }, 'odd key': null }),
      none,
    );
    expect(lines(diff!.changes)).toEqual([
      '~ a = 1 -> 2',
      '~ nested.deeper.n = 1 -> 2',
      '+ nested.new = "y"',
      '- nested.old = "x"',
      '+ ["odd key"] = null',
    ]);
  });

  it('a statement added is one change, matched by Sid whatever the order', () => {
    const added = { Sid: 'ConsoleAdded', Effect: 'Allow', Action: 's3:*', Resource: '*' };
    const diff = diffJsonStrings(policy(READ), policy(added, READ), none);
    expect(lines(diff!.changes)).toEqual([
      '+ Statement[Sid="ConsoleAdded"] = {"Action":["s3:*"],"Effect":"Allow","Resource":["*"],"Sid":"ConsoleAdded"}',
    ]);
  });

  it('a statement changed by Sid shows what changed inside it; actions as sets', () => {
    const diff = diffJsonStrings(
      policy(READ),
      policy({ ...READ, Action: ['s3:GetObject', 's3:PutObject'], Effect: 'Deny' }),
      none,
    );
    expect(lines(diff!.changes)).toEqual([
      '+ Statement[Sid="Read"].Action = "s3:PutObject"',
      '~ Statement[Sid="Read"].Effect = "Allow" -> "Deny"',
    ]);
  });

  it('key order, spacing, a set’s order and a one-element list written as a string are no change', () => {
    const before = `{
      "Statement": {"Resource": ["arn:aws:s3:::b/*", "arn:aws:s3:::b"], "Action": "s3:GetObject", "Effect": "Allow",
        "Principal": {"AWS": "arn:aws:iam::123456789012:root"}, "Condition": {"StringEquals": {"aws:PrincipalOrgID": "o-1"}}},
      "Version": "2012-10-17"
    }`;
    const after = json({
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Action: ['s3:GetObject'],
          Resource: ['arn:aws:s3:::b', 'arn:aws:s3:::b/*'],
          Principal: { AWS: ['arn:aws:iam::123456789012:root'] },
          Condition: { StringEquals: { 'aws:PrincipalOrgID': ['o-1'] } },
        },
      ],
    });
    expect(diffJsonStrings(before, after, none)).toEqual({ changes: [], omitted: 0 });
  });

  it('statements without a Sid are matched by content: a changed one is removed and added', () => {
    const list = { Effect: 'Allow', Action: 's3:ListBucket', Resource: 'arn:aws:s3:::b' };
    const diff = diffJsonStrings(
      policy({ ...list, Action: 's3:ListAllMyBuckets' }, list),
      policy(list, { ...list, Action: 's3:ListBucketVersions' }),
      none,
    );
    expect(lines(diff!.changes)).toEqual([
      '- Statement[0] = {"Action":["s3:ListAllMyBuckets"],"Effect":"Allow","Resource":["arn:aws:s3:::b"]}',
      '+ Statement[1] = {"Action":["s3:ListBucketVersions"],"Effect":"Allow","Resource":["arn:aws:s3:::b"]}',
    ]);
  });

  it('container definitions are matched by name, their environment too; other lists by index', () => {
    const web = (image: string, env: { name: string; value: string }[], ports: number[]) => ({
      name: 'web',
      image,
      environment: env,
      portMappings: ports.map((p) => ({ containerPort: p })),
      command: ['serve', '--port', String(ports[0])],
    });
    const before = [{ name: 'sidecar', image: 'envoy:1' }, web('web:1', [{ name: 'A', value: '1' }], [80])];
    const after = [
      web(
        'web:2',
        [
          { name: 'B', value: '2' },
          { name: 'A', value: '1' },
        ],
        [8080],
      ),
    ];
    const diff = diffJsonStrings(json(before), json(after), none);
    expect(lines(diff!.changes)).toEqual([
      '- [name="sidecar"] = {"image":"envoy:1","name":"sidecar"}',
      '~ [name="web"].command[2] = "80" -> "8080"',
      '+ [name="web"].environment[name="B"] = {"name":"B","value":"2"}',
      '~ [name="web"].image = "web:1" -> "web:2"',
      '~ [name="web"].portMappings[0].containerPort = 80 -> 8080',
    ]);
  });

  it('keeps MAX_JSON_CHANGES changes and counts the rest', () => {
    const many = Array.from({ length: MAX_JSON_CHANGES + 30 }, (_, i) => ({ ...READ, Sid: `S${i}` }));
    const diff = diffJsonStrings(policy(), policy(...many), none);
    expect(diff!.changes).toHaveLength(MAX_JSON_CHANGES);
    expect(diff!.omitted).toBe(30);
  });

  it('masks secrets inside the document by value, in values and in keys, as the rest of the diff', () => {
    const secret = 'tok-3f9a<b>&c-0123456789';
    const redactor = createRedactor([secret]);
    // jsonencode() writes < > & as \u003c \u003e \u0026: the raw string never holds the secret as typed.
    const escaped = (value: unknown) =>
      json(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
    const diff = diffJsonStrings(
      escaped({ env: [{ name: 'TOKEN', value: 'old' }] }),
      escaped({ env: [{ name: 'TOKEN', value: secret }], [`x-${secret}`]: 1 }),
      redactor,
    );
    const text = lines(diff!.changes).join('\n');
    expect(text).toContain('(sensitive value)');
    expect(text).not.toContain('tok-3f9a');
  });

  it('a `__proto__` key in a policy is a key like any other: its change shows', () => {
    const doc = (v: string) => `{"Statement":[{"Sid":"S","Effect":"Allow","__proto__":{"x":"${v}"}}]}`;
    expect(lines(diffJsonStrings(doc('a'), doc('b'), none)!.changes)).toEqual([
      '~ Statement[Sid="S"].__proto__.x = "a" -> "b"',
    ]);
  });

  it('parseJsonDocument reads only objects and arrays', () => {
    expect(parseJsonDocument(' [1] ')).toEqual([1]);
    expect(parseJsonDocument('"x"')).toBeUndefined();
    expect(parseJsonDocument('{bad')).toBeUndefined();
  });
});

function attributeOf(list: PlanAnalysis['changes'], address: string, path: string): AttributeChange {
  const attr = list.find((c) => c.address === address)?.attributes.find((a) => a.path === path);
  if (!attr) throw new Error(`no ${address} ${path}`);
  return attr;
}

describe('the analysis of a plan with JSON-encoded attributes (AWS provider shapes)', () => {
  const { analysis } = analyzePlan(parsePlanJson(readFixture('aws-json-attributes.json')));

  it('an IAM policy edited in the console: the drift and the plan show the statement and the action', () => {
    const drifted = attributeOf(analysis.drift, 'aws_iam_policy.app_logs', 'policy');
    expect(lines(drifted.json!.changes)).toEqual([
      '+ Statement[Sid="ReadLogs"].Action = "logs:DeleteLogGroup"',
      '+ Statement[Sid="ConsoleAdded"] = {"Action":["s3:*"],"Effect":"Allow","Resource":["*"],"Sid":"ConsoleAdded"}',
    ]);
    const planned = attributeOf(analysis.changes, 'aws_iam_policy.app_logs', 'policy');
    expect(lines(planned.json!.changes)).toEqual([
      '- Statement[Sid="ReadLogs"].Action = "logs:DeleteLogGroup"',
      '- Statement[Sid="ConsoleAdded"] = {"Action":["s3:*"],"Effect":"Allow","Resource":["*"],"Sid":"ConsoleAdded"}',
    ]);
    // The raw strings are still the attribute's values (and the fingerprint's).
    expect(planned.before.kind).toBe('value');
  });

  it('a bucket policy read back with other key order and strings for lists: the same document', () => {
    expect(attributeOf(analysis.changes, 'aws_s3_bucket_policy.logs', 'policy').json).toEqual({
      changes: [],
      omitted: 0,
    });
  });

  it('container definitions: image, a variable and a sidecar, on the attribute forcing replacement', () => {
    const defs = attributeOf(analysis.changes, 'aws_ecs_task_definition.web', 'container_definitions');
    expect(defs.forcesReplacement).toBe(true);
    expect(lines(defs.json!.changes)).toEqual([
      '+ [name="web"].environment[name="FEATURE_FLAGS"] = {"name":"FEATURE_FLAGS","value":"checkout-v2"}',
      '~ [name="web"].image = "123456789012.dkr.ecr.eu-west-1.amazonaws.com/web:1.4.2" -> "123456789012.dkr.ecr.eu-west-1.amazonaws.com/web:1.5.0"',
      expect.stringMatching(/^\+ \[name="otel"\] = \{"cpu":0,/),
    ]);
  });

  it('a policy marked sensitive shows no content at all', () => {
    const secret = attributeOf(analysis.changes, 'aws_iam_role_policy.read_secret', 'policy');
    expect(secret.json).toBeUndefined();
    expect([secret.before.kind, secret.after.kind]).toEqual(['sensitive', 'sensitive']);
    const text = renderPlanText(analysis);
    expect(text).not.toContain('db-json-fixture-secret');
    expect(text).toContain('~ policy = (sensitive value)');
  });

  it('the text diff lists the changes under the attribute', () => {
    const text = renderPlanText(analysis);
    expect(text).toContain(
      '~ policy = (JSON) 2 changes inside:\n          - Statement[Sid="ReadLogs"].Action = "logs:DeleteLogGroup"\n',
    );
    expect(text).toContain('~ policy = (JSON) same document: only key order');
  });

  it('an unmarked copy of a secret in a JSON attribute is masked inside the structural diff', () => {
    // terraform_data's output copies a sensitive input unmarked; here the copy is a jsonencode()'d document.
    const secret = 'pa<ss>&word-7f3a9c1e';
    const doc = (value: string) =>
      JSON.stringify({ Statement: [{ Sid: 'S', Condition: { StringEquals: { 'aws:Tag': value } } }] }).replace(
        /[<>&]/g,
        (c) => `\\u00${c.charCodeAt(0).toString(16)}`,
      );
    const plan = makePlan({
      variables: { token: { value: secret } },
      configuration: { root_module: { variables: { token: { sensitive: true } } } },
      resource_changes: [
        resourceChange({
          address: 'aws_iam_policy.p',
          actions: ['update'],
          before: { policy: doc('public') },
          after: { policy: doc(secret) },
        }),
      ],
    });
    const { analysis: masked } = analyzePlan(parsePlanJson(JSON.stringify(plan)));
    const attr = attributeOf(masked.changes, 'aws_iam_policy.p', 'policy');
    // Condition values are sets: the old one removed, the new one (a secret) added.
    expect(lines(attr.json!.changes)).toEqual([
      '- Statement[Sid="S"].Condition.StringEquals["aws:Tag"] = "public"',
      '+ Statement[Sid="S"].Condition.StringEquals["aws:Tag"] = (sensitive value)',
    ]);
    expect(renderPlanText(masked)).not.toMatch(/pa<ss>|7f3a9c1e/);
    // The raw strings (check --json, the fingerprint) hold it as jsonencode() wrote it: masked there too.
    expect(JSON.stringify(masked)).not.toContain('7f3a9c1e');
  });
});
