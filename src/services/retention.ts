import type { ServiceDeps } from './deps.js';

/**
 * Deletes the artifacts of runs older than the retention. Saved plans hold secrets in clear, so keeping
 * them no longer than needed is part of keeping them private. Returns how many were removed.
 */
export async function pruneArtifacts(deps: Pick<ServiceDeps, 'store' | 'artifacts'>, before: Date): Promise<number> {
  let removed = 0;
  for (const ref of deps.store.listArtifactsBefore(before)) {
    await deps.artifacts.delete(ref.key);
    deps.store.removeArtifact(ref.runId, ref.kind);
    removed += 1;
  }
  return removed;
}
