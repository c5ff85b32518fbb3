import type { ServiceDeps } from '../runtime/deps.js';
import { loadAnalysis, loadPolicy } from '../check/stored-analysis.js';
import { loadAttribution } from '../check/stored-attribution.js';
import { loadCommits } from '../check/stored-commits.js';

/**
 * What a run's message shows besides the run itself, as its check stored it: the analysis, the policy's
 * verdict, the commits a pending change brings, and who changed what drifted. Handed to the Slack side,
 * which renders it and reads nothing of the services itself.
 */
export function runContent(deps: Pick<ServiceDeps, 'artifacts' | 'store'>) {
  return {
    analysis: (runId: string) => loadAnalysis(deps, runId),
    policy: (runId: string) => loadPolicy(deps, runId),
    commits: (runId: string) => loadCommits(deps, runId),
    attribution: (runId: string) => loadAttribution(deps, runId),
  };
}
