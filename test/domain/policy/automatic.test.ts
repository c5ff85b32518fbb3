import { describe, expect, it } from 'vitest';
import { automaticApply } from '../../../src/domain/policy/automatic.js';
import { emptyEvaluation } from '../../../src/domain/policy/evaluate.js';
import type { PolicyEvaluation } from '../../../src/domain/policy/model.js';

const evaluation = (overrides: Partial<PolicyEvaluation> = {}): PolicyEvaluation => ({
  ...emptyEvaluation(),
  ...overrides,
});
const plan = { applyable: true, hasChanges: true };
const deny = evaluation({ denied: true, findings: [{ rule: 'no-gpu', effect: 'deny', message: 'no' }] });
const needsSenior = evaluation({
  approvals: [{ rule: 'many-destroys', count: 1, from: ['senior'] }],
  findings: [{ rule: 'many-destroys', effect: 'require_approval', message: 'm' }],
});
const minor = evaluation({ allMinor: true });

describe('automaticApply', () => {
  it.each([
    ['alert', plan, minor, false, 'mode alert'],
    ['auto-minor', plan, minor, true, 'every change is minor'],
    ['auto-minor', plan, evaluation(), false, 'not every change is minor'],
    ['auto-minor', plan, undefined, false, 'not every change is minor'],
    ['auto-minor', plan, { ...minor, ...needsSenior, allMinor: true }, false, 'many-destroys requires approval'],
    ['auto-apply', plan, evaluation(), true, 'mode auto-apply'],
    ['auto-apply', plan, undefined, true, 'mode auto-apply'],
    ['auto-apply', plan, deny, false, 'denied by no-gpu'],
    ['auto-apply', plan, needsSenior, false, 'many-destroys requires approval'],
    ['auto-apply', { applyable: false, hasChanges: true }, evaluation(), false, 'errors while planning'],
    ['auto-apply', { applyable: true, hasChanges: false }, evaluation(), false, 'nothing to apply'],
    [
      'auto-apply',
      plan,
      evaluation({ findings: [{ rule: 'broken-deny', effect: 'warn', message: 'No such key', error: true }] }),
      false,
      'broken-deny could not be evaluated',
    ],
  ] as const)('%s -> apply %s (%s)', (mode, p, policy, apply, reason) => {
    const decision = automaticApply(mode, p, policy);
    expect(decision.apply).toBe(apply);
    expect(decision.reason).toContain(reason);
  });
});
