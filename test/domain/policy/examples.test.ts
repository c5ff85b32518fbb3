/** The shipped gates (examples/policies.yml): approvals, warnings and denials on hand-made plans. */
import { describe, expect, it } from 'vitest';
import { makePlan, resourceChange } from '../plan/plan-builder.js';
import { checkExampleCase, create, destroy, destroys, NO_ENV, PROD, update, type ExampleCase } from './example-case.js';
import { evaluatePlan, examplePolicy, exampleRules } from './helpers.js';

const CASES: ExampleCase[] = [
  {
    name: 'a destroy needs one approval from sre-leads',
    changes: [destroy('aws_s3_bucket.logs')],
    fired: ['destroy-needs-approval'],
    findings: ['destroy-needs-approval@aws_s3_bucket.logs'],
    messages: ['aws_s3_bucket.logs would be destroyed: an SRE lead must approve'],
    approvals: ['destroy-needs-approval'],
  },
  {
    name: 'a replace destroys too',
    changes: [
      { address: 'aws_db_instance.main', actions: ['delete', 'create'], before: { id: 'a' }, after: { id: 'b' } },
    ],
    fired: ['destroy-needs-approval'],
    messages: ['aws_db_instance.main would be replaced: an SRE lead must approve'],
    approvals: ['destroy-needs-approval'],
  },
  {
    name: 'an in-place update destroys nothing',
    changes: [update('aws_s3_bucket.logs', { acl: 'a' }, { acl: 'b' })],
    fired: [],
  },
  {
    name: 'exactly 5 destroys need no senior',
    changes: destroys(5),
    fired: ['destroy-needs-approval'],
    approvals: ['destroy-needs-approval'],
  },
  {
    name: 'more than 5 destroys need a senior approver as well',
    changes: [...destroys(6), update('aws_s3_bucket.kept', { acl: 'a' }, { acl: 'b' })],
    fired: ['destroy-needs-approval', 'many-destroys-need-senior'],
    findings: [...destroys(6).map((d) => `destroy-needs-approval@${d.address}`), 'many-destroys-need-senior'],
    approvals: ['destroy-needs-approval', 'many-destroys-need-senior'],
  },
  {
    name: 'a security group change warns',
    changes: [update('aws_security_group.web', { ingress: [] }, { ingress: [{ from_port: 22 }] })],
    fired: ['security-group-changes-warn'],
    messages: ['aws_security_group.web: security group change (update)'],
  },
  {
    name: 'a VPC security group rule warns',
    changes: [create('aws_vpc_security_group_ingress_rule.ssh', { from_port: 22 })],
    fired: ['security-group-changes-warn'],
  },
  {
    name: 'a security group rule destroyed warns and needs approval',
    changes: [destroy('aws_security_group_rule.ssh')],
    fired: ['destroy-needs-approval', 'security-group-changes-warn'],
    findings: [
      'destroy-needs-approval@aws_security_group_rule.ssh',
      'security-group-changes-warn@aws_security_group_rule.ssh',
    ],
    approvals: ['destroy-needs-approval'],
  },
  { name: 'a security-group-like type that is not one', changes: [create('aws_security_groupish.x', {})], fired: [] },
  {
    name: 'a p4 instance outside prod is denied',
    changes: [create('aws_instance.gpu', { instance_type: 'p4d.24xlarge', ami: 'ami-1' })],
    fired: ['expensive-instances-outside-prod'],
    messages: ['aws_instance.gpu: instance type p4d.24xlarge is refused outside prod (environment "dev")'],
    denied: true,
  },
  {
    name: 'a p4 instance in prod is fine',
    stack: PROD,
    changes: [create('aws_instance.gpu', { instance_type: 'p4d.24xlarge' })],
    fired: [],
  },
  {
    name: 'a stack without environment is outside prod',
    stack: NO_ENV,
    changes: [update('aws_launch_template.big', { instance_type: 'm5.large' }, { instance_type: 'u-6tb1.metal' })],
    fired: ['expensive-instances-outside-prod'],
    messages: ['aws_launch_template.big: instance type u-6tb1.metal is refused outside prod (environment "")'],
    denied: true,
  },
  {
    name: 'x2 and p5 are expensive too',
    changes: [
      create('aws_instance.a', { instance_type: 'x2iedn.xlarge' }),
      create('aws_instance.b', { instance_type: 'p5.48xlarge' }),
    ],
    fired: ['expensive-instances-outside-prod'],
    denied: true,
  },
  {
    name: 'an ordinary instance type is fine',
    changes: [create('aws_instance.web', { instance_type: 'm5.large' })],
    fired: [],
  },
  {
    name: 'a launch template without instance type is fine',
    changes: [create('aws_launch_template.lt', { instance_type: null })],
    fired: [],
  },
  {
    name: 'destroying a p4 instance is not refused',
    changes: [destroy('aws_instance.gpu')],
    fired: ['destroy-needs-approval'],
    approvals: ['destroy-needs-approval'],
  },
];

describe('the shipped example policies', () => {
  it('ship every example of issue 5, each with a description', () => {
    const rules = exampleRules();
    expect(rules.map((r) => [r.name, r.effect])).toEqual([
      ['destroy-needs-approval', 'require_approval'],
      ['many-destroys-need-senior', 'require_approval'],
      ['security-group-changes-warn', 'warn'],
      ['expensive-instances-outside-prod', 'deny'],
      ['tag-only-changes-are-minor', 'minor'],
      ['iam-changes-warn', 'warn'],
      ['autoscaler-owns-desired-capacity', 'ignore'],
      ['cost-tool-tags', 'ignore'],
    ]);
    for (const rule of rules) expect(rule.description, rule.name).toBeTruthy();
    expect(rules.find((r) => r.name === 'many-destroys-need-senior')).toMatchObject({
      scope: 'plan',
      count: 1,
      from: ['senior'],
    });
    expect(rules.find((r) => r.name === 'destroy-needs-approval')).toMatchObject({
      scope: 'resource',
      count: 1,
      from: ['sre-leads'],
    });
  });

  it.each(CASES)('$name', checkExampleCase);

  it('approvals carry count and groups', () => {
    const { evaluation } = evaluatePlan(
      examplePolicy(),
      makePlan({ resource_changes: destroys(7).map(resourceChange) }),
    );
    expect(evaluation.approvals).toEqual([
      { rule: 'destroy-needs-approval', count: 1, from: ['sre-leads'] },
      { rule: 'many-destroys-need-senior', count: 1, from: ['senior'] },
    ]);
    expect(evaluation.findings.at(-1)?.message).toBe('7 resources would be destroyed: a senior approver must approve');
  });
});
