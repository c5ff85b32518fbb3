import { z } from 'zod';
import type { PlanAnalysis } from '../../domain/plan/model.js';
import { loadArtifact } from '../../services/artifacts.js';
import type { ServiceDeps } from '../../services/deps.js';

/**
 * Stored metadata is a boundary too: the analysis a message is rendered from is checked for the fields
 * the renderers rely on (the rest of its shape is driftgate's own, written by check-stack).
 */
const StoredAnalysis = z.looseObject({
  terraformVersion: z.string(),
  changes: z.array(z.looseObject({ address: z.string(), action: z.string() })),
  drift: z.array(z.looseObject({ address: z.string(), action: z.string() })),
  outputs: z.array(z.unknown()),
  counts: z.object({ create: z.number(), update: z.number(), delete: z.number(), replace: z.number(), read: z.number() }),
  hasChanges: z.boolean(),
  fingerprint: z.string(),
  applyable: z.boolean(),
});

/** A run's analysis from the artifact store (sha256 checked); undefined when the run has none (no changes). */
export async function loadAnalysis(deps: Pick<ServiceDeps, 'artifacts' | 'store'>, runId: string): Promise<PlanAnalysis | undefined> {
  const body = await loadArtifact(deps, runId, 'analysis');
  if (!body) return undefined;
  const parsed = StoredAnalysis.safeParse(JSON.parse(body.toString('utf8')));
  if (!parsed.success) throw new Error(`stored analysis of run ${runId} is malformed at ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}`);
  return parsed.data as unknown as PlanAnalysis;
}
