import type { Run } from '../../domain/run/model.js';
import type { ServiceDeps } from '../runtime/deps.js';

export const APPLY_INTERRUPTED = 'apply_interrupted';

/**
 * At start, after the store marked the runs a dead process left in flight `interrupted`: each of them that
 * had started an apply is audited and published, so its Slack message, its thread and on-call say so where
 * people look. An interrupted plan changed nothing and is only logged.
 */
export async function reportInterruptedApplies(
  deps: Pick<ServiceDeps, 'store' | 'bus' | 'now'>,
  interrupted: readonly Run[],
  /** Runs found `approved` whose apply had been handed to terraform: their `apply_started` may be lost. */
  handed: readonly Run[] = [],
): Promise<void> {
  for (const run of [...interrupted, ...handed]) {
    const started =
      (await deps.store.listAudit({ runId: run.id })).findLast((a) => a.action === 'apply_started') ??
      (handed.includes(run)
        ? { actor: (await deps.store.listApprovals(run.id)).at(-1)?.userId ?? 'unknown' }
        : undefined);
    if (!started) continue;
    await deps.store.appendAudit({
      at: deps.now(),
      actor: 'system',
      action: APPLY_INTERRUPTED,
      runId: run.id,
      stack: run.stack,
      detail: { startedBy: started.actor },
    });
    await deps.bus.publish({ type: 'apply_interrupted', stack: run.stack, run, startedBy: started.actor });
  }
}
