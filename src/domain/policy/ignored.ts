import type { PlanAnalysis } from '../plan/model.js';
import type { PolicyEvaluation } from './model.js';

/**
 * Every change of the plan (to apply, and seen as drift) is covered by an `ignore` rule: another system
 * owns those values, so nothing is alerted or paged. The run is still recorded, and `/drift show` and the
 * message list the changes as ignored with the rule's name.
 */
export function everythingIgnored(
  analysis: Pick<PlanAnalysis, 'changes' | 'drift'>,
  policy: PolicyEvaluation | undefined,
): boolean {
  if (!policy || policy.ignored.length === 0) return false;
  const ignored = new Set(policy.ignored.map((i) => i.address));
  const all = [...analysis.changes, ...analysis.drift];
  return all.length > 0 && all.every((c) => ignored.has(c.address));
}
