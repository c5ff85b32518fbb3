/** The whole masked plan as a text file for the run's thread, when the message had to cut it. */
import type { PlanAnalysis } from '../../domain/plan/model.js';
import { renderPlanText } from '../../domain/plan/render-text.js';
import type { Run } from '../../domain/run/model.js';

export interface PlanFile {
  filename: string;
  title: string;
  content: string;
}

/** File names keep to safe characters: `prod/database` -> `prod-database`. */
function slug(text: string): string {
  return (
    text
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80) || 'stack'
  );
}

export function renderFullPlanFile(stackName: string, run: Run, analysis: PlanAnalysis): PlanFile {
  const head = [
    `# driftgate plan for ${stackName}`,
    `# run ${run.id}, planned ${run.createdAt.toISOString()}${run.commitSha ? ` at commit ${run.commitSha}` : ''}`,
    `# terraform ${analysis.terraformVersion}; sensitive values are masked`,
    '',
  ];
  return {
    filename: `plan-${slug(stackName)}-${slug(run.id)}.txt`,
    title: `Full plan: ${stackName} (run ${run.id})`.slice(0, 250),
    content: `${head.join('\n')}${renderPlanText(analysis, { color: false })}`,
  };
}
