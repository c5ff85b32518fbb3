import type { ArtifactKind, ArtifactRef } from '../../domain/run/model.js';
import type { ServiceDeps } from './deps.js';

const FILE_NAMES: Record<ArtifactKind, string> = {
  plan: 'plan.tfplan',
  plan_json: 'plan.json',
  plan_log: 'plan.log',
  apply_log: 'apply.log',
  analysis: 'analysis.json',
  policy: 'policy.json',
  commits: 'commits.json',
  remediation: 'remediation.json',
  attribution: 'attribution.json',
  evidence: 'evidence.json',
};

export function artifactKey(runId: string, kind: ArtifactKind): string {
  return `runs/${runId}/${FILE_NAMES[kind]}`;
}

/** Writes an artifact and records it (with its sha256) on the run. */
export async function storeArtifact(
  deps: Pick<ServiceDeps, 'artifacts' | 'store'>,
  runId: string,
  kind: ArtifactKind,
  body: Buffer | string,
): Promise<ArtifactRef> {
  const stored = await deps.artifacts.put(artifactKey(runId, kind), body);
  return await deps.store.addArtifact({ runId, kind, key: stored.key, sha256: stored.sha256, size: stored.size });
}

/** What reading an artifact back needs: the store's record of it and the artifact store. */
export interface ArtifactReader {
  artifacts: ServiceDeps['artifacts'];
  store: Pick<ServiceDeps['store'], 'listArtifacts'>;
}

/**
 * Reads a run's artifact back, verifying its sha256: the one recorded when it was written, or
 * `expectedSha256` when the caller holds a hash of its own (the plan a person reviewed).
 */
export async function loadArtifact(
  deps: ArtifactReader,
  runId: string,
  kind: ArtifactKind,
  expectedSha256?: string,
): Promise<Buffer | undefined> {
  const ref = (await deps.store.listArtifacts(runId)).find((a) => a.kind === kind);
  return ref ? deps.artifacts.get(ref.key, expectedSha256 ?? ref.sha256) : undefined;
}
