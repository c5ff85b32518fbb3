import { z } from 'zod';
import type { PlanAnalysis } from '../../domain/plan/model.js';
import type { PolicyEvaluation } from '../../domain/policy/model.js';
import { POLICY_EFFECTS } from '../../domain/policy/model.js';
import type { ArtifactKind } from '../../domain/run/model.js';
import { type ArtifactReader, loadArtifact } from '../runtime/artifacts.js';
import type { ServiceDeps } from '../runtime/deps.js';

/**
 * Stored metadata is a boundary too: what a message is rendered from is checked for the fields the
 * renderers rely on (the rest of its shape is driftgate's own, written by check-stack).
 */
const StoredAnalysis = z.looseObject({
  terraformVersion: z.string(),
  changes: z.array(z.looseObject({ address: z.string(), action: z.string() })),
  drift: z.array(z.looseObject({ address: z.string(), action: z.string() })),
  outputs: z.array(z.unknown()),
  counts: z.object({
    create: z.number(),
    update: z.number(),
    delete: z.number(),
    replace: z.number(),
    read: z.number(),
  }),
  hasChanges: z.boolean(),
  fingerprint: z.string(),
  applyable: z.boolean(),
});

const StoredPolicy = z.object({
  findings: z.array(
    z.object({
      rule: z.string(),
      effect: z.enum(POLICY_EFFECTS),
      message: z.string(),
      address: z.string().optional(),
      error: z.literal(true).optional(),
    }),
  ),
  denied: z.boolean(),
  approvals: z.array(z.object({ rule: z.string(), count: z.number().int().min(1), from: z.array(z.string()).min(1) })),
  allMinor: z.boolean(),
  ignored: z.array(z.object({ address: z.string(), rule: z.string() })),
  fired: z.array(z.string()),
});

/** A stored JSON artifact of a run, checked against `schema`; undefined when the run has none. */
export async function loadJson<T>(
  deps: ArtifactReader,
  runId: string,
  kind: ArtifactKind,
  schema: z.ZodType<T>,
): Promise<T | undefined> {
  const body = await loadArtifact(deps, runId, kind);
  if (!body) return undefined;
  const parsed = schema.safeParse(JSON.parse(body.toString('utf8')));
  if (!parsed.success)
    throw new Error(
      `stored ${kind} of run ${runId} is malformed at ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}`,
    );
  return parsed.data;
}

/** A run's analysis from the artifact store (sha256 checked); undefined when the run has none (no changes). */
export async function loadAnalysis(
  deps: Pick<ServiceDeps, 'artifacts' | 'store'>,
  runId: string,
): Promise<PlanAnalysis | undefined> {
  return (await loadJson(deps, runId, 'analysis', StoredAnalysis)) as unknown as PlanAnalysis | undefined;
}

/** What the policies said about a run's plan; undefined when no policy was evaluated. */
export function loadPolicy(
  deps: Pick<ServiceDeps, 'artifacts' | 'store'>,
  runId: string,
): Promise<PolicyEvaluation | undefined> {
  return loadJson(deps, runId, 'policy', StoredPolicy);
}
