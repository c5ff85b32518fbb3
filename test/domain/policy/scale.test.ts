/** All shipped rules over a generated 10,000-resource plan: it runs, and gives the expected verdict. Timing: bench/policy.ts. */
import { describe, expect, it } from 'vitest';
import { evaluatePlan, examplePolicy, expectNoSecretIn } from './helpers.js';
import { LARGE_PLAN_SECRET, largePlan } from './large-plan.js';

describe('policies at scale', () => {
  it('evaluates every example rule over 10,000 resource changes', () => {
    const evaluated = evaluatePlan(examplePolicy(), largePlan(10_000));
    const { input, evaluation } = evaluated;
    expect(input.terraform.resource_changes).toHaveLength(10_000);
    expect(input.terraform.resource_drift).toHaveLength(1_000);
    const perRule = new Map<string, number>();
    for (const f of evaluation.findings) perRule.set(f.rule, (perRule.get(f.rule) ?? 0) + 1);
    expect(Object.fromEntries(perRule)).toEqual({
      'destroy-needs-approval': 2_000,
      'many-destroys-need-senior': 1,
      'security-group-changes-warn': 2_000,
      'expensive-instances-outside-prod': 1_000,
      'iam-changes-warn': 1_000,
    });
    expect(evaluation.findings.filter((f) => f.error)).toEqual([]);
    expect(evaluation.findings.find((f) => f.rule === 'many-destroys-need-senior')?.message).toBe(
      '2000 resources would be destroyed: a senior approver must approve',
    );
    expect(evaluation.fired).toEqual([
      'destroy-needs-approval',
      'many-destroys-need-senior',
      'security-group-changes-warn',
      'expensive-instances-outside-prod',
      'tag-only-changes-are-minor',
      'iam-changes-warn',
      'autoscaler-owns-desired-capacity',
    ]);
    expect(evaluation.denied).toBe(true);
    expect(evaluation.allMinor).toBe(false);
    expect(evaluation.ignored).toHaveLength(1_000);
    expectNoSecretIn(evaluated, [LARGE_PLAN_SECRET]);
  });
});
