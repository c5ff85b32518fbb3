/**
 * Policies on plan JSON from real terraform runs (test/fixtures/plans): the shipped examples, and
 * rules that echo every value they can see, to prove that no secret reaches the input or a message.
 */
import { describe, expect, it } from 'vitest';
import type { PolicyStack } from '../../../src/domain/policy/input.js';
import { ALL_FIXTURE_SECRETS, readFixture, REAL_FIXTURES } from '../plan/plan-builder.js';
import { compileOrThrow, evaluatePlan, examplePolicy, expectNoSecretIn, findingKeys } from './helpers.js';

const policy = examplePolicy();
const STAGING: PolicyStack = { name: 'staging/data', environment: 'staging', labels: ['data'] };

/** Rules that put every value in reach into a message. */
const echo = compileOrThrow([
  {
    name: 'echo-resource',
    scope: 'resource',
    when: 'true',
    effect: 'warn',
    message: '{{ resource }} {{ resource.before }} {{ resource.after }}',
  },
  { name: 'echo-plan', scope: 'plan', when: 'true', effect: 'warn', message: '{{ terraform }}' },
  {
    name: 'echo-drift',
    scope: 'plan',
    when: 'size(terraform.resource_drift) > 0',
    effect: 'warn',
    message: '{{ terraform.resource_drift.map(r, r.after) }}',
  },
]);

describe('policies on real plans', () => {
  it.each(REAL_FIXTURES)('%s: no secret reaches the input or any message', (name) => {
    const text = readFixture(name);
    for (const rules of [policy, echo]) {
      const evaluated = evaluatePlan(rules, text, STAGING);
      expectNoSecretIn(evaluated, ALL_FIXTURE_SECRETS);
      expect(evaluated.evaluation.findings.filter((f) => f.error)).toEqual([]);
    }
  });

  it('the echo rules do show values, masked', () => {
    const { evaluation } = evaluatePlan(echo, readFixture('data-changes.json'), STAGING);
    const password = evaluation.findings.find((f) => f.address === 'terraform_data.password')!;
    // input is marked sensitive; output is an unmarked copy, masked by value.
    expect(password.message).toContain('"input":"(sensitive value)"');
    expect(password.message).toContain('"output":"(sensitive value)"');
    const conn = evaluation.findings.find((f) => f.address === 'terraform_data.conn')!;
    expect(conn.message).toContain('postgres://app:(sensitive value)@db:5432/app');
  });

  it('data-create.json: creates of terraform_data fire nothing', () => {
    const { input, evaluation } = evaluatePlan(policy, readFixture('data-create.json'), STAGING);
    expect(input.terraform.resource_changes).toHaveLength(8);
    expect(evaluation).toMatchObject({
      fired: [],
      findings: [],
      denied: false,
      approvals: [],
      allMinor: false,
      ignored: [],
    });
  });

  it('data-changes.json: every destroy (delete or replace) needs approval; 4 are not "more than 5"', () => {
    const { input, evaluation } = evaluatePlan(policy, readFixture('data-changes.json'), STAGING);
    expect(findingKeys(evaluation)).toEqual([
      'destroy-needs-approval@terraform_data.cache',
      'destroy-needs-approval@terraform_data.db',
      'destroy-needs-approval@terraform_data.legacy',
      'destroy-needs-approval@module.app.terraform_data.token',
    ]);
    expect(evaluation.findings.map((f) => f.message)).toContain(
      'terraform_data.legacy would be destroyed: an SRE lead must approve',
    );
    expect(evaluation.findings.map((f) => f.message)).toContain(
      'terraform_data.db would be replaced: an SRE lead must approve',
    );
    expect(evaluation.approvals).toEqual([{ rule: 'destroy-needs-approval', count: 1, from: ['sre-leads'] }]);
    expect(evaluation.allMinor).toBe(false);
    // The move is a change too (as in the analysis): no rule can let it through unseen.
    expect(input.terraform.resource_changes.find((c) => c.address === 'terraform_data.new_name')).toMatchObject({
      actions: ['no-op'],
      previous_address: 'terraform_data.old_name',
      changed_attributes: [],
    });
    const token = input.terraform.resource_changes.find((c) => c.address === 'module.app.terraform_data.token')!;
    expect(token).toMatchObject({ module_address: 'module.app', actions: ['delete', 'create'] });
    const web = input.terraform.resource_changes.find((c) => c.address === 'terraform_data.web')!;
    expect(web.changed_attributes).toEqual(
      expect.arrayContaining(['input.name', 'input.ports[2]', 'input.tags["team.owner"]']),
    );
  });

  it('data-no-changes.json: nothing to evaluate', () => {
    const { input, evaluation } = evaluatePlan(policy, readFixture('data-no-changes.json'), STAGING);
    expect(input.terraform.resource_changes).toEqual([]);
    expect(evaluation).toMatchObject({ fired: [], findings: [], allMinor: false });
  });

  it('s3-drift.json: the real tag drift is tag-only, hence minor; no ignore rule owns those tags', () => {
    const { input, evaluation } = evaluatePlan(policy, readFixture('s3-drift.json'), {
      name: 'prod/storage',
      environment: 'prod',
      labels: [],
    });
    expect(input.terraform.resource_changes).toHaveLength(1);
    expect(input.terraform.resource_changes[0]!.changed_attributes).toEqual([
      'tags.Name',
      'tags.owner',
      'tags_all.Name',
      'tags_all.owner',
    ]);
    expect(input.terraform.resource_drift[0]).toMatchObject({
      address: 'aws_s3_object.report',
      type: 'aws_s3_object',
      actions: ['update'],
    });
    expect(input.terraform.resource_drift[0]!.changed_attributes).toEqual(
      expect.arrayContaining(['tags.Name', 'tags.owner']),
    );
    expect(evaluation).toMatchObject({
      fired: ['tag-only-changes-are-minor'],
      findings: [],
      allMinor: true,
      ignored: [],
      denied: false,
    });
  });
});
