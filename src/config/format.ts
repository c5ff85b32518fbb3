import type { ConfigIssue } from '../domain/errors.js';
import type { ConfigValidation } from './load.js';

/** `stacks[2].schedule: invalid cron expression "*\/5 * *"`; root issues have no path prefix. */
export function formatIssue(issue: ConfigIssue): string {
  return issue.path ? `${issue.path}: ${issue.message}` : issue.message;
}

/** One line per issue, for the CLI. */
export function formatIssues(issues: readonly ConfigIssue[]): string {
  return issues.map(formatIssue).join('\n');
}

/** The `driftgate validate` report: errors, then warnings, then a summary line. */
export function formatValidation(result: ConfigValidation): string {
  const lines = [
    ...result.issues.map((i) => `error: ${formatIssue(i)}`),
    ...result.warnings.map((w) => `warning: ${formatIssue(w)}`),
  ];
  const where = result.file ?? 'config';
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const head = result.config
    ? `ok, ${count(result.config.stacks.length, 'stack')}`
    : count(result.issues.length, 'error');
  const tail = result.warnings.length ? `, ${count(result.warnings.length, 'warning')}` : '';
  lines.push(`${where}: ${head}${tail}`);
  return lines.join('\n');
}
