import { z } from 'zod';
import type { Attribution } from '../domain/change-events/attribution.js';
import { cloudTrailConsoleUrl } from '../domain/change-events/describe.js';
import { StoredChangeDescription } from '../domain/change-events/stored-change.js';
import type { ArtifactReader } from './artifacts.js';
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
