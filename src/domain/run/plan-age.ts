import type { Run } from './model.js';

/**
 * How long a reviewed plan stays applyable is `maxPlanAge`: after that the real infrastructure may have
 * moved under it. One rule for the Approve click and for the apply itself.
 */
export function planAgeMs(run: Pick<Run, 'createdAt'>, now: Date): number {
  return now.getTime() - run.createdAt.getTime();
}

export function planExpired(run: Pick<Run, 'createdAt'>, now: Date, maxPlanAgeMs: number): boolean {
  return planAgeMs(run, now) > maxPlanAgeMs;
}
