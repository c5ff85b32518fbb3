import { z } from 'zod';
import { type Attribution, stillDrifting } from '../../domain/change-events/attribution.js';
import { cloudTrailConsoleUrl } from '../../domain/change-events/describe.js';
import { StoredChangeDescription } from '../../domain/change-events/stored-change.js';
import type { RunState } from '../../domain/run/state.js';
import type { ArtifactReader } from '../runtime/artifacts.js';
import type { ServiceDeps } from '../runtime/deps.js';
import { loadJson } from './stored-analysis.js';

const StoredChange = StoredChangeDescription.extend({ resource: z.string().optional() });

const StoredAttribution = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('found'),
    changes: z.array(StoredChange),
    unanswered: z.literal(true).optional(),
    notLookedUp: z.number().int().positive().optional(),
  }),
  z.object({ status: z.literal('none'), notLookedUp: z.number().int().positive().optional() }),
  z.object({ status: z.literal('unknown') }),
]);

/** Who changed a run's drifted resources (stored by check-stack); undefined when nothing was said. */
export async function loadAttribution(deps: ArtifactReader, runId: string): Promise<Attribution | undefined> {
  const stored = await loadJson(deps, runId, 'attribution', StoredAttribution);
  if (stored?.status !== 'found') return stored;
  // The link is built again from the region and event id, never taken from storage as it is.
  const changes = stored.changes.map((c) => {
    const consoleUrl = cloudTrailConsoleUrl(c.region, c.eventId);
    return { ...c, ...(consoleUrl ? { consoleUrl } : {}) };
  });
  return {
    status: 'found',
    changes,
    ...(stored.unanswered ? { unanswered: true } : {}),
    ...(stored.notLookedUp ? { notLookedUp: stored.notLookedUp } : {}),
  };
}

/** A stack's latest run in one of these left its drift standing: nobody applied it away. */
const DRIFT_STANDS: readonly RunState[] = [
  'drifted',
  'pending_approval',
  'superseded',
  'approved',
  'rejected',
  'expired',
];
/** Runs that found something about the drift; a failed or interrupted check found nothing. */
const FOUND: readonly RunState[] = [...DRIFT_STANDS, 'no_changes', 'applying', 'applied', 'apply_failed'];

/**
 * Who changed the resources in `drifted`, as the stack's latest check that found something knew it: what
 * a new check adds to, never replaces. A clean plan or an apply since ended that drift, and with it its
 * authors; a resource no longer drifting drops out (stillDrifting).
 */
export async function standingAttribution(
  deps: ArtifactReader & { store: Pick<ServiceDeps['store'], 'listRuns'> },
  stack: string,
  drifted: ReadonlySet<string>,
): Promise<Attribution | undefined> {
  const [latest] = await deps.store.listRuns({ stack, states: [...FOUND], limit: 1 });
  if (!latest || !DRIFT_STANDS.includes(latest.state)) return undefined;
  return stillDrifting(await loadAttribution(deps, latest.id), drifted);
}
