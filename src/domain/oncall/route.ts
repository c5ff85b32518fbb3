import type { Stack } from '../stack.js';
import { stackMatcher } from '../stack-glob.js';
import type { PageSeverity, PagingRules } from './model.js';

/** Where and how loudly a stack pages: the variable holding its routing key, never the key. */
export interface PageRoute {
  routingKeyEnv: string;
  severity: PageSeverity;
}

export const DEFAULT_SEVERITY: PageSeverity = 'error';

/**
 * The first `pagerduty.routing` rule whose `stacks` glob and `environments` both match the stack (an
 * absent criterion matches every stack). Undefined when none does: that stack never pages.
 */
export function pageRouteFor(
  pagerduty: PagingRules | undefined,
  stack: Pick<Stack, 'name' | 'environment'>,
): PageRoute | undefined {
  if (!pagerduty) return undefined;
  const { environment } = stack;
  const rule = pagerduty.routing.find(
    (r) =>
      (r.stacks === undefined || stackMatcher(r.stacks)(stack.name)) &&
      (r.environments === undefined || (environment !== undefined && r.environments.includes(environment))),
  );
  if (!rule) return undefined;
  const severity =
    (environment !== undefined && Object.hasOwn(pagerduty.severity, environment)
      ? pagerduty.severity[environment]
      : undefined) ?? DEFAULT_SEVERITY;
  return { routingKeyEnv: rule.routingKeyEnv, severity };
}
