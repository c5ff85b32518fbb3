import { describe, expect, it } from 'vitest';
import { analyzePlan } from '../../../src/domain/plan/analyze.js';
import { parsePlanJson } from '../../../src/domain/plan/schema.js';
import { buildPolicyInput } from '../../../src/domain/policy/input.js';
import type { PolicyInput } from '../../../src/domain/policy/model.js';
import { makePlan, resourceChange, type ChangeSpec } from '../plan/plan-builder.js';

const SECRET = 'correct-horse-battery-staple';

function build(changes: ChangeSpec[], drift: ChangeSpec[] = [], environment?: string): PolicyInput {
  const plan = parsePlanJson(
    JSON.stringify(
      makePlan({ resource_changes: changes.map(resourceChange), resource_drift: drift.map(resourceChange) }),
    ),
  );
  const stack = { name: 'dev/app', labels: ['a'], ...(environment === undefined ? {} : { environment }) };
  return buildPolicyInput(plan, analyzePlan(plan).redactor, stack, 'pending_change');
}

describe('buildPolicyInput', () => {
  it('carries terraform fields, the stack (environment "" when unset) and the run kind', () => {
    const input = build([
      {
        address: 'module.net.aws_vpc.main',
        actions: ['update'],
        before: { cidr: 'a', tags: { N: '1' } },
        after: { cidr: 'b', tags: { N: '1' } },
      },
    ]);
    expect(input.stack).toEqual({ name: 'dev/app', environment: '', labels: ['a'] });
    expect(input.run).toEqual({ kind: 'pending_change' });
    expect(input.terraform.resource_changes).toEqual([
      {
        address: 'module.net.aws_vpc.main',
        type: 'aws_vpc',
        name: 'main',
        mode: 'managed',
        provider_name: 'terraform.io/builtin/terraform',
        actions: ['update'],
        before: { cidr: 'a', tags: { N: '1' } },
        after: { cidr: 'b', tags: { N: '1' } },
        changed_attributes: ['cidr'],
      },
    ]);
    expect(build([], [], 'prod').stack.environment).toBe('prod');
  });

  it('leaves out no-ops, keeps moves and imports (as the analysis does), and reads drift alike', () => {
    const input = build(
      [
        { address: 'aws_s3_bucket.same', actions: ['no-op'], before: { a: 1 }, after: { a: 1 } },
        {
          address: 'aws_s3_bucket.moved',
          previous_address: 'aws_s3_bucket.old',
          actions: ['no-op'],
          before: { a: 1 },
          after: { a: 1 },
        },
        {
          address: 'aws_s3_bucket.imported',
          actions: ['no-op'],
          importing: { id: 'b' },
          before: { a: 1 },
          after: { a: 1 },
        },
        { address: 'aws_s3_bucket.gone', actions: ['delete'], before: { a: 1 } },
      ],
      [{ address: 'aws_s3_bucket.gone', actions: ['delete'], before: { a: 1 } }],
    );
    expect(input.terraform.resource_changes.map((c) => [c.address, c.previous_address, c.importing])).toEqual([
      ['aws_s3_bucket.moved', 'aws_s3_bucket.old', undefined],
      ['aws_s3_bucket.imported', undefined, true],
      ['aws_s3_bucket.gone', undefined, undefined],
    ]);
    expect(input.terraform.resource_changes[2]).toMatchObject({
      before: { a: 1 },
      after: null,
      changed_attributes: ['a'],
    });
    expect(input.terraform.resource_drift).toEqual([
      expect.objectContaining({ address: 'aws_s3_bucket.gone', actions: ['delete'] }),
    ]);
    // No key holds undefined: CEL would read it as missing.
    expect(Object.values(input.terraform.resource_changes[2]!)).not.toContain(undefined);
  });

  it('masks marked values where they are, and unmarked copies of a secret by value', () => {
    const input = build([
      {
        address: 'aws_db_instance.main',
        actions: ['update'],
        before: { password: SECRET, conn: `postgres://u:${SECRET}@db`, nested: { list: ['ok', SECRET] }, size: 1 },
        after: { password: SECRET, conn: `postgres://u:${SECRET}@db`, nested: { list: ['ok', SECRET] }, size: 2 },
        before_sensitive: { password: true, nested: { list: [false, true] } },
        after_sensitive: { password: true, nested: { list: [false, true] } },
      },
      { address: 'aws_secret.whole', actions: ['create'], after: { value: SECRET }, after_sensitive: true },
    ]);
    const [db, whole] = input.terraform.resource_changes;
    expect(db!.after).toEqual({
      conn: 'postgres://u:(sensitive value)@db',
      nested: { list: ['ok', '(sensitive value)'] },
      password: '(sensitive value)',
      size: 2,
    });
    expect(db!.changed_attributes).toEqual(['size']);
    expect(whole!.after).toBe('(sensitive value)');
    expect(whole!.changed_attributes).toEqual(['value']);
    expect(JSON.stringify(input)).not.toContain(SECRET);
  });

  it('changed attributes are the analysis paths, quoted keys and list indexes included', () => {
    const input = build([
      {
        address: 'aws_instance.web',
        actions: ['update'],
        before: { tags: { 'team.owner': 'a', Name: 'x' }, ports: [80] },
        after: { tags: { 'team.owner': 'b', Name: 'x' }, ports: [80, 443] },
        after_unknown: { arn: true },
      },
    ]);
    expect(input.terraform.resource_changes[0]!.changed_attributes).toEqual(['arn', 'ports[1]', 'tags["team.owner"]']);
  });
});
