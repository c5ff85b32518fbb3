import type { DomainEvent } from '../domain/events.js';
import type { RelayedEvent } from '../domain/relayed-event.js';
import type { ServiceDeps } from './deps.js';
import { loadAnalysis, loadPolicy } from './stored-analysis.js';

/** Raised when a relayed event cannot be rebuilt yet (its run is not readable): the relay retries it. */
export class RelayedEventNotReadyError extends Error {}

/**
 * The event a worker published, rebuilt on the control plane from the store and the artifact store: the
 * run as it is now, the analysis and policy the worker stored. Undefined when the event needs an analysis
 * the run does not have (nothing to render an alert from).
 */
export async function rebuildEvent(
  deps: Pick<ServiceDeps, 'store' | 'artifacts'>,
  relayed: RelayedEvent,
): Promise<DomainEvent | undefined> {
  const run = await deps.store.getRun(relayed.runId);
  if (!run) throw new RelayedEventNotReadyError(`run ${relayed.runId} of ${relayed.stack} is not in the store`);
  const { runId: _runId, ...fields } = relayed;
  switch (fields.type) {
    case 'drift_detected':
    case 'plan_pending_approval':
    case 'plan_refreshed': {
      const analysis = await loadAnalysis(deps, run.id);
      if (!analysis) return undefined;
      const policy = await loadPolicy(deps, run.id);
      return { ...fields, run, analysis, ...(policy ? { policy } : {}) };
    }
    default:
      return { ...fields, run };
  }
}
