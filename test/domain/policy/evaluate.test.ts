import type { PolicyChange } from '../../../src/domain/change-events/attribution.js';
import { describe, expect, it } from 'vitest';
import { emptyEvaluation, evaluatePolicies } from '../../../src/domain/policy/evaluate.js';
import type {
  PolicyEvaluation,
  PolicyInput,
  PolicyResourceChange,
  PolicyRule,
} from '../../../src/domain/policy/model.js';
import { compileOrThrow } from './helpers.js';

function change(address: string, actions: string[], after: unknown = {}): PolicyResourceChange {
  const [type = 'x', name = 'x'] = address.split('.').slice(-2);
  return {
    address,
    type,
    name,
    mode: 'managed',
    provider_name: 'p',
    actions,
    before: null,
    after,
    changed_attributes: [],
  };
}

const input = (
  changes: PolicyResourceChange[],
  drift: PolicyResourceChange[] = [],
  who: PolicyChange[] = [],
): PolicyInput => ({
  terraform: { resource_changes: changes, resource_drift: drift },
  stack: { name: 'dev/app', environment: 'dev', labels: ['team-a'] },
  run: { kind: 'drift' },
  drift: { changes: who, causes: [] },
});

/** A change made by `principal` to `resource`, as drift.changes[] holds it. */
const madeBy = (resource: string, principal: Partial<PolicyChange['principal']>): PolicyChange => ({
  principal: { kind: 'assumed_role', arn: '', name: 'x', issuer: '', ...principal },
  how: 'console',
  event_name: 'PutBucketTagging',
  event_source: 's3.amazonaws.com',
  time: '2026-01-01T00:00:00.000Z',
  resource,
});

const rule = (name: string, when: string, extra: Partial<PolicyRule> = {}): PolicyRule => ({
  name,
  scope: 'resource',
  when,
  effect: 'warn',
  ...extra,
});

type Case = { name: string; rules: PolicyRule[]; input: PolicyInput; expected: Partial<PolicyEvaluation> };

const THREE = [
  change('aws_s3_bucket.a', ['update']),
  change('aws_s3_bucket.b', ['update']),
  change('aws_instance.c', ['update'], { instance_type: 'm5' }),
];

const CASES: Case[] = [
  {
    name: 'a rule that throws is reported once, counted as not matched, and the next rule still runs',
    rules: [
      rule('needs-has', 'resource.after.instance_type == "m5"', { effect: 'deny' }),
      rule('all', 'true', { message: '{{ resource.name }}' }),
    ],
    input: input(THREE),
    expected: {
      denied: true,
      fired: ['needs-has', 'all'],
      findings: [
        { rule: 'needs-has', effect: 'deny', message: 'needs-has', address: 'aws_instance.c' },
        {
          rule: 'needs-has',
          effect: 'warn',
          error: true,
          address: 'aws_s3_bucket.a',
          message:
            'rule needs-has failed on aws_s3_bucket.a (and 1 more): `when`: No such key: instance_type; counted as not matched',
        },
        { rule: 'all', effect: 'warn', message: 'a', address: 'aws_s3_bucket.a' },
        { rule: 'all', effect: 'warn', message: 'b', address: 'aws_s3_bucket.b' },
        { rule: 'all', effect: 'warn', message: 'c', address: 'aws_instance.c' },
      ],
    },
  },
  {
    name: 'a deny that throws everywhere denies nothing, and says so',
    rules: [rule('broken-deny', 'resource.after.nope', { effect: 'deny' })],
    input: input(THREE.slice(0, 1)),
    expected: {
      denied: false,
      fired: [],
      findings: [
        {
          rule: 'broken-deny',
          effect: 'warn',
          error: true,
          address: 'aws_s3_bucket.a',
          message: 'rule broken-deny failed on aws_s3_bucket.a: `when`: No such key: nope; counted as not matched',
        },
      ],
    },
  },
  {
    name: 'a plan rule that throws',
    rules: [rule('plan', 'terraform.nope > 1', { scope: 'plan' })],
    input: input([]),
    expected: {
      fired: [],
      findings: [
        {
          rule: 'plan',
          effect: 'warn',
          error: true,
          message: 'rule plan failed on the plan: `when`: No such key: nope; counted as not matched',
        },
      ],
    },
  },
  {
    name: 'a dyn `when` that gives no bool',
    rules: [rule('dyn', 'resource.after.flag')],
    input: input([change('a.b', ['update'], { flag: 'yes' })]),
    expected: {
      fired: [],
      findings: [
        {
          rule: 'dyn',
          effect: 'warn',
          error: true,
          address: 'a.b',
          message: 'rule dyn failed on a.b: `when` gave string, not a bool; counted as not matched',
        },
      ],
    },
  },
  {
    name: 'a message part that throws shows (?) and is reported',
    rules: [rule('msg', 'true', { message: 'type {{ resource.after.instance_type }} on {{ resource.address }}' })],
    input: input([change('a.b', ['create'])]),
    expected: {
      fired: ['msg'],
      findings: [
        { rule: 'msg', effect: 'warn', message: 'type (?) on a.b', address: 'a.b' },
        {
          rule: 'msg',
          effect: 'warn',
          error: true,
          address: 'a.b',
          message: 'rule msg failed on a.b: message: No such key: instance_type; shown with (?)',
        },
      ],
    },
  },
  {
    name: 'numbers: plan values compare with ints, CEL ints render without a suffix',
    rules: [
      rule('big', 'resource.after.replicas > 5', {
        message: '{{ resource.after.replicas }} replicas, {{ size(resource.actions) }} action, {{ resource.after }}',
      }),
    ],
    input: input([change('a.b', ['update'], { replicas: 7, ratio: 0.5 }), change('a.c', ['update'], { replicas: 5 })]),
    expected: {
      fired: ['big'],
      findings: [
        { rule: 'big', effect: 'warn', address: 'a.b', message: '7 replicas, 1 action, {"replicas":7,"ratio":0.5}' },
      ],
    },
  },
  {
    name: 'stack and run are in reach',
    rules: [
      rule('ctx', 'run.kind == "drift" && "team-a" in stack.labels && stack.name.startsWith("dev/")', {
        scope: 'plan',
        message: '{{ stack.name }} {{ run.kind }}',
      }),
    ],
    input: input([]),
    expected: { fired: ['ctx'], findings: [{ rule: 'ctx', effect: 'warn', message: 'dev/app drift' }] },
  },
  {
    name: 'fired lists each rule once, in rule order',
    rules: [
      rule('second', '"delete" in resource.actions'),
      rule('first', 'true', { effect: 'minor' }),
      rule('never', 'false'),
    ],
    input: input([change('a.b', ['delete']), change('a.c', ['delete'])]),
    expected: { fired: ['second', 'first'], allMinor: true },
  },
  {
    name: 'minor rules together cover the plan; minor findings are not listed',
    rules: [
      rule('tags', 'resource.name == "a"', { effect: 'minor' }),
      rule('desc', 'resource.name == "b"', { effect: 'minor' }),
    ],
    input: input([change('x.a', ['update']), change('x.b', ['update'])]),
    expected: { fired: ['tags', 'desc'], allMinor: true, findings: [] },
  },
  {
    name: 'minor rules do not look at drift',
    rules: [rule('m', 'true', { effect: 'minor' })],
    input: input([], [change('x.a', ['update'])]),
    expected: { fired: [], allMinor: false },
  },
  {
    name: 'ignore runs over drift and changes; an address is named once, by the first rule',
    rules: [
      rule('asg', 'resource.type == "aws_autoscaling_group"', { effect: 'ignore' }),
      rule('all', 'true', { effect: 'ignore' }),
      rule('w', 'true'),
    ],
    input: input(
      [change('aws_autoscaling_group.web', ['update'])],
      [change('aws_autoscaling_group.web', ['update']), change('aws_s3_bucket.logs', ['update'])],
    ),
    expected: {
      fired: ['asg', 'all', 'w'],
      ignored: [
        { address: 'aws_autoscaling_group.web', rule: 'asg' },
        { address: 'aws_s3_bucket.logs', rule: 'all' },
      ],
      findings: [{ rule: 'w', effect: 'warn', message: 'w', address: 'aws_autoscaling_group.web' }],
      allMinor: false,
    },
  },
  {
    name: 'require_approval adds one requirement per rule, however many resources match',
    rules: [
      rule('ra', '"delete" in resource.actions', {
        effect: 'require_approval',
        count: 2,
        from: ['leads', 'seniors'],
        description: 'destroys',
      }),
    ],
    input: input([change('a.b', ['delete']), change('a.c', ['delete'])]),
    expected: {
      approvals: [{ rule: 'ra', count: 2, from: ['leads', 'seniors'] }],
      findings: [
        { rule: 'ra', effect: 'require_approval', message: 'destroys', address: 'a.b' },
        { rule: 'ra', effect: 'require_approval', message: 'destroys', address: 'a.c' },
      ],
    },
  },
  {
    name: 'drift.changes: drift an automation role made is ignored, drift by root needs security',
    rules: [
      rule(
        'autoscaler',
        'drift.changes.exists(c, c.resource == resource.address && c.principal.issuer.endsWith(":role/karpenter"))',
        { effect: 'ignore' },
      ),
      rule('root', 'drift.changes.exists(c, c.principal.kind == "root")', {
        scope: 'plan',
        effect: 'require_approval',
        count: 1,
        from: ['security'],
      }),
    ],
    input: input(
      [change('aws_s3_bucket.a', ['update']), change('aws_s3_bucket.b', ['update'])],
      [change('aws_s3_bucket.a', ['update']), change('aws_s3_bucket.b', ['update'])],
      [
        madeBy('aws_s3_bucket.a', { issuer: 'arn:aws:iam::111122223333:role/karpenter' }),
        madeBy('aws_s3_bucket.b', { kind: 'root', name: 'root' }),
      ],
    ),
    expected: {
      ignored: [{ address: 'aws_s3_bucket.a', rule: 'autoscaler' }],
      approvals: [{ rule: 'root', count: 1, from: ['security'] }],
    },
  },
];

describe('evaluatePolicies', () => {
  it.each(CASES)('$name', ({ rules, input: given, expected }) => {
    expect(evaluatePolicies(compileOrThrow(rules), given)).toMatchObject(expected);
  });

  it('an empty policy says nothing, and does not make a change minor', () => {
    const result = evaluatePolicies(compileOrThrow([]), input([change('a.b', ['update'])]));
    expect(result).toEqual(emptyEvaluation());
    expect(result).toMatchObject({ denied: false, allMinor: false, fired: [], findings: [] });
  });
});
