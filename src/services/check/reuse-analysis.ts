import type { PlanAnalysis } from '../../domain/plan/model.js';
import type { PolicyEvaluation } from '../../domain/policy/model.js';
import type { Run } from '../../domain/run/model.js';
import { loadArtifact } from '../runtime/artifacts.js';
import type { ServiceDeps } from '../runtime/deps.js';
import { loadAnalysis, loadPolicy } from './stored-analysis.js';

/** What an earlier run with the same plan signature left, to stand for a new one without `show -json`. */
export interface ReusableAnalysis {
  from: Run;
  analysis: PlanAnalysis;
  policy?: PolicyEvaluation;
  /** The earlier plan's JSON (remediation reads it) and its masked log, which the same stdout makes again. */
  planJson: Buffer;
  planLog: Buffer;
}

/**
 * The analysis of the latest earlier plan of `stack` with this signature, or undefined when there is none
 * or any of its artifacts is gone (retention) or fails its sha256: then the plan is analysed afresh.
 */
export async function reusableAnalysis(
  deps: Pick<ServiceDeps, 'store' | 'artifacts' | 'logger'>,
  stack: string,
  runId: string,
  signature: string,
): Promise<ReusableAnalysis | undefined> {
  const from = await deps.store.lastRunWithPlanSignature(stack, signature, runId);
  if (!from?.kind) return undefined;
  try {
    const [analysis, policy, planJson, planLog] = await Promise.all([
      loadAnalysis(deps, from.id),
      loadPolicy(deps, from.id),
      loadArtifact(deps, from.id, 'plan_json'),
      loadArtifact(deps, from.id, 'plan_log'),
    ]);
    if (!analysis || !planJson || !planLog) return undefined;
    return { from, analysis, planJson, planLog, ...(policy ? { policy } : {}) };
  } catch (err) {
    deps.logger.warn({ stack, runId: from.id, err: String(err) }, 'earlier analysis unreadable; analysing afresh');
    return undefined;
  }
}
