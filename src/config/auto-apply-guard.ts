import type { ConfigIssue } from '../domain/errors.js';
import { shortestIntervalMinutes } from './schedule-interval.js';
import type { Stack } from '../domain/stack.js';

const PROD = new Set(['prod', 'production']);
const MIN_INTERVAL_MINUTES = 30;

function isProd(stack: Stack): boolean {
  return stack.labels.some((l) => PROD.has(l.toLowerCase())) || PROD.has((stack.environment ?? '').toLowerCase());
}

/**
 * `auto-apply` on a prod stack whose schedule runs more often than every 30 minutes is an error unless
 * the stack sets `allowFrequentAutoApply: true`: reconciling production that aggressively reverts a
 * person's emergency change before anyone has looked at it.
 */
export function autoApplyIssues(stacks: readonly Stack[], where: (stack: Stack) => string): ConfigIssue[] {
  return stacks.flatMap((stack) => {
    if (stack.mode !== 'auto-apply' || !isProd(stack) || stack.allowFrequentAutoApply) return [];
    const minutes = shortestIntervalMinutes(stack.schedule);
    if (minutes >= MIN_INTERVAL_MINUTES) return [];
    const rounded = Math.round(minutes);
    const every = minutes < 1 ? 'more than once a minute' : rounded === 1 ? 'every minute' : `every ${rounded} minutes`;
    return [
      {
        path: where(stack),
        message: `${stack.name} is prod and mode auto-apply, and its schedule "${stack.schedule}" runs ${every}: auto-apply on prod needs ${MIN_INTERVAL_MINUTES} minutes or more between checks (or set allowFrequentAutoApply: true on the stack if that is really meant)`,
      },
    ];
  });
}
