import type { Run } from '../../domain/run/model.js';
import type { ServiceDeps } from '../runtime/deps.js';

export interface ExpireDeps extends Pick<ServiceDeps, 'bus' | 'store'> {
  /** Asks for a fresh plan of the stack (the scheduler's on-demand check). */
  requestCheck(stack: string): void;
}

/**
 * A plan that can no longer be applied (too old, or refused by terraform as stale) has been marked
 * `expired`: say so, and ask for a fresh plan so that people have something they can approve.
 */
export async function announceExpiredPlan(
  deps: ExpireDeps,
  run: Run,
  options: { stale: boolean; credentials?: boolean },
): Promise<void> {
  const current = (await deps.store.getRun(run.id)) ?? run;
  await deps.bus.publish({
    type: 'plan_expired',
    stack: run.stack,
    run: current,
    stale: options.stale,
    ...(options.credentials ? { credentials: true } : {}),
  });
  deps.requestCheck(run.stack);
}
