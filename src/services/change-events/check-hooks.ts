import { errorMessage } from '../../domain/errors.js';
import type { createDriftAttributor } from './attribute-drift.js';
import type { CheckChangeEvents, ServiceDeps } from '../runtime/deps.js';
import type { ResourceIndexKeeper } from './resource-index-keeper.js';

/**
 * What a check asks of change events, wherever it runs: the changes waiting for the stack marked before
 * the plan and answered after it, the index kept current from what the plan showed, and who made the
 * drift. The store failing costs only the answer, never the check.
 */
export function createCheckChangeEvents(
  deps: Pick<ServiceDeps, 'logger'> & {
    store: Pick<ServiceDeps['store'], 'markPendingChanges' | 'dropPendingChanges'>;
  },
  keeper: Pick<ResourceIndexKeeper, 'fromPlan' | 'fromState'>,
  attribute: ReturnType<typeof createDriftAttributor>,
): CheckChangeEvents {
  return {
    markWaiting: (stack) =>
      deps.store.markPendingChanges(stack.name).catch((err: unknown) => {
        deps.logger.warn({ stack: stack.name, err: errorMessage(err) }, 'waiting changes not marked');
        return 0;
      }),
    indexPlan: (stack, plan) => keeper.fromPlan(stack, plan),
    async cleanPlan(stack, signal) {
      await keeper.fromState(stack, signal);
    },
    attribute: (stack, drifted, options) => attribute(stack.name, drifted, options),
    async answered(stack, upTo) {
      if (upTo === 0) return;
      await deps.store
        .dropPendingChanges(stack.name, upTo)
        .catch((err: unknown) =>
          deps.logger.warn({ stack: stack.name, err: errorMessage(err) }, 'answered changes not cleared'),
        );
    },
  };
}
