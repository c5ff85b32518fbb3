/** One row of the example-policy tables: a hand-made plan and what the shipped rules must say of it. */
import { expect } from 'vitest';
import type { PolicyStack } from '../../../src/domain/policy/input.js';
import { makePlan, resourceChange, type ChangeSpec } from '../plan/plan-builder.js';
import { DEV_STACK, evaluatePlan, examplePolicy, findingKeys } from './helpers.js';

export const destroy = (address: string): ChangeSpec => ({ address, actions: ['delete'], before: { id: address } });
export const update = (address: string, before: object, after: object): ChangeSpec => ({
  address,
  actions: ['update'],
  before,
  after,
});
export const create = (address: string, after: object): ChangeSpec => ({ address, actions: ['create'], after });
export const destroys = (n: number) => Array.from({ length: n }, (_, i) => destroy(`aws_s3_bucket.b${i}`));

export const PROD: PolicyStack = { name: 'prod/app', environment: 'prod', labels: ['prod'] };
export const NO_ENV: PolicyStack = { name: 'app', labels: [] };

export interface ExampleCase {
  name: string;
  changes?: ChangeSpec[];
  drift?: ChangeSpec[];
  stack?: PolicyStack;
  fired: string[];
  /** `rule@address`, in order. */
  findings?: string[];
  messages?: string[];
  denied?: boolean;
  /** Rules that added an approval requirement; none when left out. */
  approvals?: string[];
  allMinor?: boolean;
  ignored?: { address: string; rule: string }[];
}

const policy = examplePolicy();

export function checkExampleCase(c: ExampleCase): void {
  const plan = makePlan({
    resource_changes: (c.changes ?? []).map(resourceChange),
    resource_drift: (c.drift ?? []).map(resourceChange),
    // Each drifted resource is one the plan depends on as a whole (`attribute: []`), so its outside change
    // is drift whatever this table's plan changes (relevant-drift.ts).
    relevant_attributes: (c.drift ?? []).map((d) => ({ resource: d.address, attribute: [] })),
  });
  const { evaluation } = evaluatePlan(policy, plan, c.stack ?? DEV_STACK);
  // The shipped rules guard every key they read: they never fail on a resource.
  expect(evaluation.findings.filter((f) => f.error)).toEqual([]);
  expect(evaluation.fired).toEqual(c.fired);
  if (c.findings) expect(findingKeys(evaluation)).toEqual(c.findings);
  if (c.messages) expect(evaluation.findings.map((f) => f.message)).toEqual(c.messages);
  expect(evaluation.denied).toBe(c.denied ?? false);
  expect(evaluation.approvals.map((a) => a.rule)).toEqual(c.approvals ?? []);
  if (c.allMinor !== undefined) expect(evaluation.allMinor).toBe(c.allMinor);
  expect(evaluation.ignored).toEqual(c.ignored ?? []);
}
