import type { PlanAnalysis } from '../../domain/plan/model.js';
import type { PolicyEvaluation } from '../../domain/policy/model.js';
import type { Run } from '../../domain/run/model.js';
import { loadAnalysis, loadPolicy } from '../check/stored-analysis.js';
import type { ServiceDeps } from '../runtime/deps.js';

export interface RunSummary {
  run?: Run;
  analysis?: PlanAnalysis;
  policy?: PolicyEvaluation;
}

/** What `/drift show` and a plan's summary show of a run: the run, what its plan found, its policy verdict. */
export async function runSummary(deps: Pick<ServiceDeps, 'artifacts' | 'store'>, run: Run): Promise<RunSummary> {
  const analysis = await loadAnalysis(deps, run.id);
  const policy = await loadPolicy(deps, run.id);
  return { run, ...(analysis ? { analysis } : {}), ...(policy ? { policy } : {}) };
}

/** The summary of a stack's latest run; empty when it has none yet. */
export async function latestRunSummary(
  deps: Pick<ServiceDeps, 'artifacts' | 'store'>,
  stack: string,
): Promise<RunSummary> {
  const [run] = await deps.store.listRuns({ stack, limit: 1 });
  return run ? runSummary(deps, run) : {};
}
