import type { ServiceDeps } from '../runtime/deps.js';
import type { Scheduler } from '../runtime/scheduler.js';

export interface RequestCheckDeps<T> extends Pick<ServiceDeps, 'now'> {
  store: Pick<ServiceDeps['store'], 'appendAudit'>;
  scheduler: Pick<Scheduler<T>, 'request'>;
}

/**
 * A person asks for a check of a stack now (`/drift check`, `driftgate check`): the audit says who asked,
 * then the check is queued ahead of scheduled ones (a stack already queued or running is not planned
 * twice). Resolves once it is queued, with what the check will find.
 */
export async function requestCheck<T>(
  deps: RequestCheckDeps<T>,
  stack: string,
  actor: string,
): Promise<{ outcome: Promise<T> }> {
  await deps.store.appendAudit({ at: deps.now(), actor, action: 'check_requested', stack });
  return { outcome: deps.scheduler.request(stack, 'manual') };
}
