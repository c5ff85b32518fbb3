import { stackMatcher } from '../stack-glob.js';
import type { Stack } from '../stack.js';
import type { PolicyApproval } from '../policy/model.js';
import type { ApprovalRequirement, ApproverRules } from './model.js';

/**
 * The approval rule for a stack: the first rule whose `stacks` glob and `environments` both match (an
 * absent criterion matches everything). Undefined when no rule matches: then nobody can apply the stack
 * from Slack, because who may apply is granted explicitly, never by default.
 */
export function requirementFor(
  stack: Pick<Stack, 'name' | 'environment'>,
  approvers: ApproverRules | undefined,
): { requirement: ApprovalRequirement; rule: number } | undefined {
  if (!approvers) return undefined;
  const rule = approvers.rules.findIndex(
    (r) =>
      (r.stacks === undefined || stackMatcher(r.stacks)(stack.name)) &&
      (r.environments === undefined || (stack.environment !== undefined && r.environments.includes(stack.environment))),
  );
  const match = approvers.rules[rule];
  if (!match) return undefined;
  return { requirement: { count: match.count, groups: [...match.from] }, rule };
}

/** The Slack user a GitHub login maps to in `approvers.authors`, to keep a change's author from approving it. */
export function authorSlackId(
  approvers: ApproverRules | undefined,
  githubLogin: string | undefined,
): string | undefined {
  if (!approvers || !githubLogin) return undefined;
  // GitHub logins are case-insensitive.
  const key = Object.keys(approvers.authors).find((login) => login.toLowerCase() === githubLogin.toLowerCase());
  return key === undefined ? undefined : approvers.authors[key];
}

/**
 * Every requirement a plan's apply needs: the approvers rule that matched, then one per approval a policy
 * added, each named by where it comes from.
 */
export function allRequirements(
  match: { requirement: ApprovalRequirement; rule: number },
  policyApprovals: readonly PolicyApproval[] = [],
): ApprovalRequirement[] {
  return [
    { ...match.requirement, source: `approvers.rules[${match.rule}]` },
    ...policyApprovals.map((a) => ({ count: a.count, groups: a.from, source: a.rule })),
  ];
}
