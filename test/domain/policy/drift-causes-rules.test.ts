import { describe, expect, it } from 'vitest';
import { blankPolicyCause, type PolicyCause } from '../../../src/domain/drift-causes/describe.js';
import { evaluatePolicies } from '../../../src/domain/policy/evaluate.js';
import type { PolicyInput, PolicyResourceChange, PolicyRule } from '../../../src/domain/policy/model.js';
import { compileOrThrow } from './helpers.js';

/** The two rules docs/policies.md shows for drift causes, as written there. */
const RULES: PolicyRule[] = [
  {
    name: 'provider-only-diffs-are-minor-in-dev',
    scope: 'resource',
    when: 'stack.environment == "dev" && drift.causes.exists(c, c.resource == resource.address) && drift.causes.all(c, c.resource != resource.address || c.kind == "provider_version")',
    effect: 'minor',
  },
  {
    name: 'console-changes-are-never-applied-back-in-prod-unseen',
    scope: 'plan',
    when: 'stack.environment == "prod" && drift.causes.exists(c, c.kind == "out_of_band" && c.how == "console")',
    message:
      'changed in the console: {{ drift.causes.filter(c, c.how == "console").map(c, c.resource + " by " + c.who) }}',
    effect: 'require_approval',
    count: 1,
    from: ['security'],
  },
];

const change = (address: string): PolicyResourceChange => ({
  address,
  type: 'aws_s3_object',
  name: address.split('.')[1]!,
  mode: 'managed',
  provider_name: 'registry.terraform.io/hashicorp/aws',
  actions: ['update'],
  before: {},
  after: {},
  changed_attributes: ['content_type'],
});

const cause = (resource: string, kind: PolicyCause['kind'], more: Partial<PolicyCause> = {}): PolicyCause => ({
  ...blankPolicyCause(resource, kind),
  ...more,
});

const input = (environment: string, causes: PolicyCause[]): PolicyInput => ({
  terraform: { resource_changes: [change('aws_s3_object.a'), change('aws_s3_object.b')], resource_drift: [] },
  stack: { name: `${environment}/site`, environment, labels: [] },
  run: { kind: 'drift' },
  drift: { changes: [], causes },
});

describe('policies over drift.causes', () => {
  const policy = compileOrThrow(RULES);

  it('a plan whose every change is only the provider is minor in dev; one with another cause is not', () => {
    const providerOnly = [cause('aws_s3_object.a', 'provider_version'), cause('aws_s3_object.b', 'provider_version')];
    expect(evaluatePolicies(policy, input('dev', providerOnly)).allMinor).toBe(true);
    const mixed = [...providerOnly, cause('aws_s3_object.b', 'out_of_band', { who: 'alice', how: 'console' })];
    expect(evaluatePolicies(policy, input('dev', mixed)).allMinor).toBe(false);
    // Unknown is not the provider's: nothing said why, so a person looks.
    expect(
      evaluatePolicies(policy, input('dev', [providerOnly[0]!, cause('aws_s3_object.b', 'unknown')])).allMinor,
    ).toBe(false);
    expect(evaluatePolicies(policy, input('prod', providerOnly)).allMinor).toBe(false);
  });

  it('a console change in prod needs security, naming who', () => {
    const console = [cause('aws_s3_object.a', 'out_of_band', { who: 'alice', how: 'console' })];
    const result = evaluatePolicies(policy, input('prod', console));
    expect(result.approvals).toEqual([
      { rule: 'console-changes-are-never-applied-back-in-prod-unseen', count: 1, from: ['security'] },
    ]);
    expect(result.findings[0]!.message).toBe('changed in the console: ["aws_s3_object.a by alice"]');
    expect(evaluatePolicies(policy, input('dev', console)).approvals).toEqual([]);
  });
});
