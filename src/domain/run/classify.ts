import type { PlanAnalysis } from '../plan/model.js';
import type { RunKind } from './state.js';

export interface ClassifyInput {
  analysis: PlanAnalysis;
  /** Commit the plan ran at, when the stack comes from Git. */
  commitSha?: string;
  /** Commit last applied through driftgate (or baselined). */
  lastAppliedCommit?: string;
}

/**
 * Drift or a change waiting to be applied. A plan with changes at the commit last applied means the real
 * infrastructure moved: drift. At a newer commit, the code moved: a merged change not yet applied. Without
 * Git information every change is drift, since the code is assumed to be what was applied.
 */
export function classifyRun({ analysis, commitSha, lastAppliedCommit }: ClassifyInput): RunKind | undefined {
  if (!analysis.hasChanges) return undefined;
  if (commitSha && lastAppliedCommit && commitSha !== lastAppliedCommit) return 'pending_change';
  return 'drift';
}

/**
 * A plan that would create every resource of a stack whose state holds none: the stack was never applied
 * here, or driftgate reads another backend or workspace than the one it lives in. Either way it is one
 * finding to fix, not drift to approve (approving would create a second copy of everything). An import
 * into an empty state is adoption, and stays a change.
 */
export function findsNoState(analysis: PlanAnalysis): boolean {
  if (analysis.resourceCount > 0) return false;
  const managed = analysis.changes.filter((c) => c.mode === 'managed');
  return managed.length > 0 && managed.every((c) => c.action === 'create' && !c.importing);
}
