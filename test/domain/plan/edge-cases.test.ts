/** Hand-made plans for what real terraform_data cannot produce on demand. */
import { describe, expect, it } from 'vitest';
import { PlanJsonError } from '../../../src/domain/errors.js';
import { analyzePlan } from '../../../src/domain/plan/analyze.js';
import type { AttributeChange, PlanAnalysis } from '../../../src/domain/plan/model.js';
import { collectSecrets } from '../../../src/domain/plan/redact.js';
import { parsePlanJson } from '../../../src/domain/plan/schema.js';
import { expectNoSecret } from './no-leak.js';
import { planText, resourceChange, type ChangeSpec } from './plan-builder.js';

function analyseChanges(specs: ChangeSpec[], extra: Record<string, unknown> = {}): PlanAnalysis {
  const plan = parsePlanJson(planText({ resource_changes: specs.map(resourceChange), ...extra }));
  const { analysis } = analyzePlan(plan);
  expectNoSecret(analysis, collectSecrets(plan));
  return analysis;
}

function attributes(
  analysis: PlanAnalysis,
  address: string,
): Record<string, Pick<AttributeChange, 'before' | 'after'>> {
  const change = analysis.changes.find((c) => c.address === address)!;
  return Object.fromEntries(change.attributes.map((a) => [a.path, { before: a.before, after: a.after }]));
}

const V = (value: unknown) => ({ kind: 'value', value });
const SENSITIVE = { kind: 'sensitive' };
const UNKNOWN = { kind: 'unknown' };
const ABSENT = { kind: 'absent' };

describe('hand-made edge cases', () => {
  it('masks sensitive values nested in maps and lists, and their unmarked copies elsewhere', () => {
    const analysis = analyseChanges([
      {
        address: 'x_db.main',
        actions: ['update'],
        before: { tags: { env: 'dev', token: 'tok-old-1234' }, hosts: ['a.example', 'pw-old-5678'] },
        after: { tags: { env: 'prod', token: 'tok-new-1234' }, hosts: ['a.example', 'pw-new-5678'] },
        before_sensitive: { tags: { token: true }, hosts: [false, true] },
        after_sensitive: { tags: { token: true }, hosts: [false, true] },
      },
      {
        address: 'x_log.copy',
        actions: ['update'],
        before: { line: 'connected with pw-old-5678 ok' },
        after: { line: 'connected with tok-new-1234 ok' },
      },
    ]);
    expect(attributes(analysis, 'x_db.main')).toEqual({
      'hosts[1]': { before: SENSITIVE, after: SENSITIVE },
      'tags.env': { before: V('dev'), after: V('prod') },
      'tags.token': { before: SENSITIVE, after: SENSITIVE },
    });
    expect(attributes(analysis, 'x_log.copy')).toEqual({
      line: { before: V('connected with (sensitive value) ok'), after: V('connected with (sensitive value) ok') },
    });
  });

  it('whole-object sensitive marks cover every string beneath', () => {
    const analysis = analyseChanges([
      {
        address: 'x_cfg.a',
        actions: ['update'],
        before: { conf: { k: 'old-conf-value' } },
        after: { conf: { k: 'new-conf-value', n: 2 } },
        before_sensitive: { conf: true },
        after_sensitive: { conf: true },
      },
      {
        address: 'x_cfg.b',
        actions: ['create'],
        after: { user: 'whole-resource-user', port: 5432 },
        after_sensitive: true,
      },
    ]);
    expect(attributes(analysis, 'x_cfg.a')).toEqual({ conf: { before: SENSITIVE, after: SENSITIVE } });
    expect(attributes(analysis, 'x_cfg.b')).toEqual({
      port: { before: ABSENT, after: SENSITIVE },
      user: { before: ABSENT, after: SENSITIVE },
    });
  });

  it('shows nested and whole-object unknowns as (known after apply)', () => {
    const analysis = analyseChanges([
      {
        address: 'x_net.main',
        actions: ['update'],
        before: { cidrs: ['10.0.0.0/16', '10.1.0.0/16'], meta: { arn: 'arn:1' } },
        after: { cidrs: ['10.0.0.0/16', null] },
        after_unknown: { cidrs: [false, true], meta: true, id: true },
      },
    ]);
    expect(attributes(analysis, 'x_net.main')).toEqual({
      'cidrs[1]': { before: V('10.1.0.0/16'), after: UNKNOWN },
      id: { before: ABSENT, after: UNKNOWN },
      meta: { before: V({ arn: 'arn:1' }), after: UNKNOWN },
    });
  });

  it('quotes keys that are not identifiers and redacts secrets in keys', () => {
    const analysis = analyseChanges([
      {
        address: 'x_tags.t',
        actions: ['update'],
        before: { tags: { 'a.b': '1', '0x': '2' } },
        after: { tags: { 'a.b': '2', '0x': '3', 'key-ok': 'v' } },
      },
    ]);
    expect(Object.keys(attributes(analysis, 'x_tags.t'))).toEqual(['tags["0x"]', 'tags["a.b"]', 'tags.key-ok']);
  });

  const orders: [string[], string, string | undefined][] = [
    [['delete', 'create'], 'replace', 'delete-first'],
    [['create', 'delete'], 'replace', 'create-first'],
    [['read'], 'read', undefined],
    [['forget'], 'delete', undefined],
  ];

  it.each(orders)('normalises actions %j', (actions, action, replaceOrder) => {
    const analysis = analyseChanges([{ address: 'x_r.r', actions, before: { a: 1 }, after: { a: 2 } }]);
    expect(analysis.changes[0]).toMatchObject(replaceOrder ? { action, replaceOrder } : { action });
    expect(analysis.changes[0]!.replaceOrder).toBe(replaceOrder);
    expect(analysis.counts[action as 'replace']).toBe(1);
  });

  it('marks a forget as such, since nothing is destroyed', () => {
    expect(analyseChanges([{ address: 'x_r.r', actions: ['forget'], before: { a: 1 } }]).changes[0]!.actionReason).toBe(
      'forget',
    );
  });

  it('rejects an impossible combination of actions with its location', () => {
    const plan = parsePlanJson(
      planText({ resource_changes: [resourceChange({ address: 'x_r.r', actions: ['update', 'create'] })] }),
    );
    expect(() => analyzePlan(plan)).toThrow(PlanJsonError);
    expect(() => analyzePlan(plan)).toThrow(
      'resource_changes[0].change.actions: unsupported combination of actions [update,create]',
    );
  });

  it('keeps imports and moves that change no attribute; leaves out plain no-ops', () => {
    const analysis = analyseChanges([
      { address: 'x_r.imported', actions: ['no-op'], before: { a: 1 }, after: { a: 1 }, importing: { id: 'i-123' } },
      { address: 'x_r.moved', actions: ['update'], previous_address: 'x_r.old', before: { a: 1 }, after: { a: 2 } },
      { address: 'x_r.same', actions: ['no-op'], before: { a: 1 }, after: { a: 1 } },
    ]);
    expect(analysis.changes.map((c) => [c.address, c.action, c.importing, c.previousAddress])).toEqual([
      ['x_r.imported', 'no-op', true, undefined],
      ['x_r.moved', 'update', undefined, 'x_r.old'],
    ]);
    expect(analysis.hasChanges).toBe(true);
  });

  it('is not applyable when terraform says the plan errored', () => {
    const analysis = analyseChanges([{ address: 'x_r.r', actions: ['create'], after: { a: 1 } }], {
      errored: true,
      applyable: false,
    });
    expect(analysis).toMatchObject({ applyable: false, hasChanges: true });
  });

  it('counts outputs-only plans as changes and masks outputs with nested marks', () => {
    const analysis = analyseChanges([], {
      output_changes: {
        conn: {
          actions: ['create'],
          before: null,
          after: { user: 'app', pass: 'output-pass-123' },
          after_unknown: false,
          before_sensitive: false,
          after_sensitive: { pass: true },
        },
        later: {
          actions: ['create'],
          before: null,
          after: null,
          after_unknown: true,
          before_sensitive: false,
          after_sensitive: false,
        },
      },
    });
    expect(analysis.hasChanges).toBe(true);
    expect(analysis.outputs).toEqual([
      {
        name: 'conn',
        action: 'create',
        before: ABSENT,
        after: V({ user: 'app', pass: '(sensitive value)' }),
        sensitive: false,
      },
      { name: 'later', action: 'create', before: ABSENT, after: UNKNOWN, sensitive: false },
    ]);
  });

  it('analyses a 10,000-resource plan', () => {
    const count = 10_000;
    const specs: ChangeSpec[] = Array.from({ length: count }, (_, i) => ({
      address: `terraform_data.item[${i}]`,
      actions: i % 10 === 0 ? ['delete', 'create'] : i % 10 === 1 ? ['update'] : ['create'],
      before:
        i % 10 < 2 ? { input: { name: `item-${i}`, secret: 'bulk-secret-value' }, output: 'bulk-secret-value' } : null,
      after: { input: { name: `item-${i}-v2`, secret: 'bulk-secret-value' } },
      after_unknown: { output: true, id: true },
      before_sensitive: { input: { secret: true } },
      after_sensitive: { input: { secret: true } },
      replace_paths: i % 10 === 0 ? [['input', 'name']] : undefined,
    }));
    const analysis = analyseChanges(specs);
    expect(analysis.counts).toEqual({ create: 8000, update: 1000, delete: 0, replace: 1000, read: 0 });
    expect(analysis.changes).toHaveLength(count);
    const replaced = analysis.changes.find((c) => c.address === 'terraform_data.item[10]')!;
    expect(replaced.attributes.find((a) => a.path === 'input.name')).toMatchObject({ forcesReplacement: true });
    expect(replaced.attributes.find((a) => a.path === 'output')).toMatchObject({ before: SENSITIVE, after: UNKNOWN });
  });
});

describe('hostile keys', () => {
  it('diffs a `__proto__` map key like any other key', () => {
    const text = `{"format_version":"1.2","terraform_version":"1.11.4","resource_changes":[{"address":"x_t.t","mode":"managed","type":"x_t","name":"t","provider_name":"p","change":{"actions":["update"],"before":{"tags":{"a":"1"}},"after":{"tags":{"__proto__":"x","a":"1"}}}}]}`;
    const { analysis } = analyzePlan(parsePlanJson(text));
    expect(analysis.changes[0]!.attributes).toMatchObject([{ path: 'tags.__proto__', before: ABSENT, after: V('x') }]);
  });
});
