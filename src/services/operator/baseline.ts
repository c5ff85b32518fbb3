import type { RunStore } from '../../ports/store.js';

export interface BaselineDeps {
  store: Pick<RunStore, 'upsertStack' | 'setLastAppliedCommit' | 'appendAudit'>;
  now: () => Date;
}

/**
 * `driftgate baseline`: records a commit as the one last applied to a stack that was applied outside
 * driftgate, so that later plans tell drift (changes at that commit) from merged changes not yet applied.
 * Audited with who, the commit, the one it replaces and where it came from.
 */
export async function baselineStack(
  deps: BaselineDeps,
  stack: string,
  baseline: { sha: string; source: 'argument' | 'branch_head' },
  actor: string,
): Promise<{ previous?: string }> {
  const previous = (await deps.store.upsertStack(stack)).lastAppliedCommit;
  await deps.store.setLastAppliedCommit(stack, baseline.sha);
  await deps.store.appendAudit({
    at: deps.now(),
    actor,
    action: 'baseline',
    stack,
    detail: { commit: baseline.sha, previous: previous ?? null, source: baseline.source },
  });
  return previous ? { previous } : {};
}
