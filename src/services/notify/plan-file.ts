import type { Run } from '../../domain/run/model.js';
import type { Store } from '../../ports/store.js';

/**
 * The whole masked plan in a run's thread, once: `post` queues it the first time, and the audit says who
 * asked. True when it had been posted before (nothing is posted then).
 */
export async function postPlanFileOnce(
  deps: { store: Store; now: () => Date },
  run: Run,
  actor: string,
  post: () => Promise<void>,
): Promise<boolean> {
  const posted = (await deps.store.listAudit({ runId: run.id })).some((a) => a.action === 'plan_file_posted');
  if (posted) return true;
  await post();
  await deps.store.appendAudit({ at: deps.now(), actor, action: 'plan_file_posted', runId: run.id, stack: run.stack });
  return false;
}
