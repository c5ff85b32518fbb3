import type { Mode } from '../stack.js';
import type { PolicyEvaluation } from './model.js';

export type AutomaticDecision = { apply: true; reason: string } | { apply: false; reason: string };

/**
 * Whether a plan is applied without a person, by the stack's mode:
 * - `alert`: never; people apply through approvals.
 * - `auto-minor`: when every change is covered by a `minor` rule, and nothing denies or requires approval.
 * - `auto-apply`: everything, unless a rule denies it or requires approval.
 * A plan terraform could not complete (`applyable` false) is never applied automatically.
 */
export function automaticApply(
  mode: Mode,
  plan: { applyable: boolean; hasChanges: boolean },
  policy: PolicyEvaluation | undefined,
): AutomaticDecision {
  if (mode === 'alert') return { apply: false, reason: 'mode alert: applied only through approvals' };
  if (!plan.hasChanges) return { apply: false, reason: 'nothing to apply' };
  if (!plan.applyable) return { apply: false, reason: 'terraform reported errors while planning' };
  const rules = (effect: 'deny' | 'require_approval') =>
    [...new Set(policy?.findings.filter((f) => f.effect === effect).map((f) => f.rule))].join(', ');
  if (policy?.denied) return { apply: false, reason: `denied by ${rules('deny')}` };
  // A rule that could not be evaluated may have been a deny: never apply on a guess.
  const broken = policy?.findings.filter((f) => f.error).map((f) => f.rule) ?? [];
  if (broken.length) return { apply: false, reason: `${[...new Set(broken)].join(', ')} could not be evaluated` };
  if (policy && policy.approvals.length > 0)
    return {
      apply: false,
      reason: `${rules('require_approval') || policy.approvals.map((a) => a.rule).join(', ')} requires approval`,
    };
  if (mode === 'auto-minor' && !policy?.allMinor)
    return { apply: false, reason: 'mode auto-minor: not every change is minor' };
  return { apply: true, reason: mode === 'auto-minor' ? 'mode auto-minor: every change is minor' : 'mode auto-apply' };
}
