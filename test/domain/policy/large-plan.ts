/**
 * A generated plan of many resource changes, shaped so that every shipped example rule has work:
 * one resource in ten of each kind below, plus autoscaler drift. Every resource carries a sensitive
 * attribute, so masking is part of the cost. Used by the scale test and bench/policy.ts.
 */
import { makePlan, resourceChange, type ChangeSpec } from '../plan/plan-builder.js';

export const LARGE_PLAN_SECRET = 'large-plan-db-password-0123456789';

const KINDS = ['tags', 'instance', 'gpu', 'sg', 'iam', 'asg', 'destroy', 'replace', 'bucket', 'vpc_sg_rule'] as const;
type Kind = (typeof KINDS)[number];

function body(i: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `id-${i}`,
    arn: `arn:aws:service:eu-west-1:123456789012:thing/${i}`,
    name: `thing-${i}`,
    password: LARGE_PLAN_SECRET,
    settings: { retention: 7, flags: ['a', 'b'], nested: { enabled: true } },
    tags: { Name: `thing-${i}`, team: 'platform' },
    tags_all: { Name: `thing-${i}`, team: 'platform' },
    ...extra,
  };
}

const SENSITIVE = { password: true };

function spec(kind: Kind, i: number): ChangeSpec {
  const marks = { before_sensitive: SENSITIVE, after_sensitive: SENSITIVE };
  const update = (type: string, before: Record<string, unknown>, after: Record<string, unknown>): ChangeSpec => ({
    address: `${type}.r${i}`,
    actions: ['update'],
    before: body(i, before),
    after: body(i, after),
    ...marks,
  });
  switch (kind) {
    case 'tags':
      return update(
        'aws_s3_bucket',
        {},
        { tags: { Name: `thing-${i}`, team: 'data' }, tags_all: { Name: `thing-${i}`, team: 'data' } },
      );
    case 'instance':
      return update('aws_instance', { instance_type: 'm5.large' }, { instance_type: 'm5.xlarge' });
    case 'gpu':
      return {
        address: `aws_instance.r${i}`,
        actions: ['create'],
        after: body(i, { instance_type: 'p4d.24xlarge' }),
        after_sensitive: SENSITIVE,
      };
    case 'sg':
      return update('aws_security_group', { ingress: [] }, { ingress: [{ from_port: 443, to_port: 443 }] });
    case 'iam':
      return update('aws_iam_role', { max_session_duration: 3600 }, { max_session_duration: 7200 });
    case 'asg':
      return update('aws_autoscaling_group', { desired_capacity: 5 }, { desired_capacity: 2 });
    case 'destroy':
      return { address: `aws_db_instance.r${i}`, actions: ['delete'], before: body(i), before_sensitive: SENSITIVE };
    case 'replace':
      return {
        address: `aws_launch_template.r${i}`,
        actions: ['delete', 'create'],
        before: body(i),
        after: body(i, { name: `new-${i}` }),
        ...marks,
      };
    case 'bucket':
      return update('aws_s3_bucket', { acl: 'private' }, { acl: 'public-read' });
    case 'vpc_sg_rule':
      return {
        address: `aws_vpc_security_group_ingress_rule.r${i}`,
        actions: ['create'],
        after: body(i, { from_port: 22 }),
        after_sensitive: SENSITIVE,
      };
  }
}

/** `count` resource changes (a multiple of 10), one kind in ten each, and drift for every autoscaling group. */
export function largePlan(count = 10_000): Record<string, unknown> {
  const changes: ChangeSpec[] = [];
  const drift: ChangeSpec[] = [];
  for (let i = 0; i < count; i++) {
    const kind = KINDS[i % KINDS.length]!;
    changes.push(spec(kind, i));
    if (kind === 'asg')
      drift.push({
        ...spec(kind, i),
        before: body(i, { desired_capacity: 2 }),
        after: body(i, { desired_capacity: 5 }),
      });
  }
  return makePlan({
    variables: { db_password: { value: LARGE_PLAN_SECRET } },
    configuration: { root_module: { variables: { db_password: { sensitive: true } } } },
    resource_changes: changes.map(resourceChange),
    resource_drift: drift.map(resourceChange),
  });
}

export const LARGE_PLAN_KINDS = KINDS;
