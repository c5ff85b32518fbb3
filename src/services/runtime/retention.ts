import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ArtifactStore } from '../../ports/artifacts.js';
import type { RunStore, Store } from '../../ports/store.js';
import { UNMATCHED_LIMITS } from '../../domain/change-events/unmatched.js';
import type { ServiceDeps } from './deps.js';

/**
 * Deletes the artifacts of runs older than the retention. Saved plans hold secrets in clear, so keeping
 * them no longer than needed is part of keeping them private. Returns how many were removed.
 */
export async function pruneArtifacts(deps: Pick<ServiceDeps, 'store' | 'artifacts'>, before: Date): Promise<number> {
  let removed = 0;
  for (const ref of await deps.store.listArtifactsBefore(before)) {
    await deps.artifacts.delete(ref.key);
    await deps.store.removeArtifact(ref.runId, ref.kind);
    removed += 1;
  }
  return removed;
}

/** The scratch dirs of check-stack (`<run>`) and apply-run (`<run>-apply`) are named after their run. */
const APPLY_SUFFIX = '-apply';

/**
 * Removes what a killed process left in the work dir: raw saved plans (secrets in clear) that only the
 * artifact store may keep. A dir whose run is still planning or applying is in use and stays; anything
 * else (a run that ended, was interrupted, or is unknown) is a leftover. Returns the names removed.
 */
export async function removeWorkLeftovers(deps: {
  store: Pick<RunStore, 'getRun'>;
  workDir: string;
}): Promise<string[]> {
  const entries = await readdir(deps.workDir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  const removed: string[] = [];
  for (const name of entries) {
    const runId = name.endsWith(APPLY_SUFFIX) ? name.slice(0, -APPLY_SUFFIX.length) : name;
    const state = (await deps.store.getRun(runId))?.state;
    if (state === 'planning' || state === 'applying') continue;
    await rm(join(deps.workDir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

export interface RetentionDeps {
  store: Store;
  artifacts: ArtifactStore;
  workDir: string;
  now: () => Date;
}

/** Milliseconds; artifacts are kept forever when their retention is not set. */
export interface RetentionSettings {
  artifacts?: number;
  outbox: number;
  /** Outbox items that failed for good; kept forever when not set. */
  outboxDead?: number;
}

/**
 * The daily retention of `serve` (its leader's): old artifacts, delivered outbox items, those that failed
 * for good past their own retention, work dir leftovers, the changes to resources no stack manages past
 * their week (their writes prune too, but only while events come), and matched changes no check answered
 * in a week.
 */
export async function runRetention(
  deps: RetentionDeps,
  settings: RetentionSettings,
): Promise<{
  artifacts: number;
  outbox: number;
  outboxDead: number;
  workLeftovers: number;
  unmatchedChanges: number;
  pendingChanges: number;
}> {
  const now = deps.now().getTime();
  const artifacts =
    settings.artifacts === undefined ? 0 : await pruneArtifacts(deps, new Date(now - settings.artifacts));
  const outbox = await deps.store.pruneDelivered(new Date(now - settings.outbox));
  const outboxDead =
    settings.outboxDead === undefined ? 0 : await deps.store.pruneDead(new Date(now - settings.outboxDead));
  const workLeftovers = (await removeWorkLeftovers(deps)).length;
  const unmatchedChanges = await deps.store.pruneUnmatchedChanges({
    before: new Date(now - UNMATCHED_LIMITS.ageMs),
    keep: UNMATCHED_LIMITS.changes,
  });
  // A check takes its stack's waiting changes within minutes; a week's are for a stack no longer checked.
  const pendingChanges = await deps.store.prunePendingChanges(new Date(now - UNMATCHED_LIMITS.ageMs));
  return { artifacts, outbox, outboxDead, workLeftovers, unmatchedChanges, pendingChanges };
}
