import { formatCounts, renderPlanText } from '../../domain/plan/render-text.js';
import type { ReportedOutcome } from '../../app/cli/checks.js';
import { policyJson, renderPolicyLines, terminalSafe } from './policy-report.js';
import { causeText } from '../../domain/drift-causes/describe.js';
import type { PlanAnalysis, ResourceChange } from '../../domain/plan/model.js';

export type { ReportedOutcome };

const FAILED: readonly ReportedOutcome['status'][] = ['errored', 'interrupted', 'blocked', 'skipped'];

/** `driftgate check` exit codes, as `terraform plan -detailed-exitcode`: an error outranks changes. */
export function checkExitCode(outcomes: ReportedOutcome[]): 0 | 1 | 2 {
  if (outcomes.some((o) => FAILED.includes(o.status))) return 1;
  if (outcomes.some((o) => o.status === 'drifted' || o.status === 'pending_approval')) return 2;
  return 0;
}

const STATUS_TEXT: Record<ReportedOutcome['status'], string> = {
  no_changes: 'in sync',
  drifted: 'DRIFTED',
  pending_approval: 'PENDING',
  errored: 'ERROR',
  interrupted: 'INTERRUPTED',
  blocked: 'BLOCKED',
  skipped: 'SKIPPED',
};

const COLORS: Partial<Record<ReportedOutcome['status'], string>> = {
  no_changes: '\u001b[32m',
  drifted: '\u001b[33m',
  pending_approval: '\u001b[36m',
  errored: '\u001b[31m',
  interrupted: '\u001b[31m',
  blocked: '\u001b[31m',
};

function detail(o: ReportedOutcome): string {
  switch (o.status) {
    case 'no_changes':
      return o.resolved ? 'drift resolved' : '';
    case 'drifted':
    case 'pending_approval':
      return `${formatCounts(o.analysis.counts)}${o.isNew ? '' : ' (seen before)'}${o.policy?.denied ? ', denied by policy' : ''}`;
    case 'errored':
      return reasonLine(o.error, o.stderrTail);
    case 'interrupted':
      return 'stopped before the plan finished';
    case 'blocked':
      return firstLine(o.reason);
    case 'skipped':
      return o.reason;
  }
}

function firstLine(text: string): string {
  return clip(text.split('\n').find((l) => l.trim()) ?? '');
}

function clip(line: string): string {
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

/**
 * The line of an error that says why, for the table: terraform's first `Error:` line, else the first line
 * after a heading such as `invalid config:` or `terraform init exited with code 1:`. The whole error
 * follows the table.
 */
function reasonLine(error: string, stderrTail: string): string {
  const lines = `${error}\n${stderrTail}`
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const terraformError = lines.find((l) => l.startsWith('Error: '));
  if (terraformError) return clip(terraformError);
  const [first = '', second] = lines;
  return clip(first.endsWith(':') && second ? second : first);
}

/** A stack's status as the table and the progress lines show it. */
export function statusText(o: ReportedOutcome): string {
  return o.status === 'errored' && o.finding === 'no_state' ? 'NO STATE' : STATUS_TEXT[o.status];
}

/** The human report: a table of stacks, then the diff of each stack that has changes, then errors. */
export function renderCheckReport(outcomes: ReportedOutcome[], options: { color: boolean }): string {
  const color = (code: string | undefined, text: string) => (options.color && code ? `${code}${text}\u001b[0m` : text);
  const paint = (status: ReportedOutcome['status'], text: string) => color(COLORS[status], text);
  const width = Math.max(5, ...outcomes.map((o) => o.stack.length));
  const rows = outcomes.map((o) => {
    const run = 'run' in o && o.run ? o.run.id : '';
    const status = statusText(o).padEnd(11);
    return `${o.stack.padEnd(width)}  ${paint(o.status, status)}  ${run.padEnd(22)}  ${detail(o)}`.trimEnd();
  });
  const out = [`${'STACK'.padEnd(width)}  ${'STATUS'.padEnd(11)}  ${'RUN'.padEnd(22)}  CHANGES`, ...rows];

  for (const o of outcomes) {
    if (o.status === 'drifted' || o.status === 'pending_approval') {
      const what = o.status === 'drifted' ? 'drift' : 'change waiting to be applied';
      out.push('', `=== ${o.stack}: ${what} (run ${o.run.id}, fingerprint ${o.analysis.fingerprint.slice(0, 12)})`);
      if (o.policy) out.push(...renderPolicyLines(o.policy, color));
      out.push(...causeLines(o.analysis));
      out.push(renderPlanText(o.analysis, { color: options.color }).trimEnd());
    } else if (o.status === 'errored' && (o.error || o.stderrTail)) {
      out.push('', `=== ${o.stack}: error`, o.error.trimEnd());
      if (o.stderrTail && !o.error.includes(o.stderrTail.trim())) out.push(o.stderrTail.trimEnd());
    }
  }
  const counts = (s: ReportedOutcome['status']) => outcomes.filter((o) => o.status === s).length;
  const skipped = counts('skipped');
  out.push(
    '',
    `${outcomes.length} stack(s): ${counts('no_changes')} in sync, ${counts('drifted')} drifted, ${counts('pending_approval')} pending, ${counts('errored') + counts('interrupted') + counts('blocked')} failed${skipped ? `, ${skipped} skipped` : ''}`,
  );
  return `${out.join('\n')}\n`;
}

/** Each resource with its causes (`causes`, with each cause's `text`): why it differs (docs/cli.md). */
function withCauses(analysis: PlanAnalysis, list: readonly ResourceChange[]): object[] {
  return list.map((r) => ({
    ...r,
    causes: (analysis.causes?.[r.address] ?? []).map((c) => ({ ...c, text: causeText(c) })),
  }));
}

/** `why:` lines, one per resource with causes; names from outside are made safe for a terminal. */
function causeLines(analysis: PlanAnalysis): string[] {
  const entries = Object.entries(analysis.causes ?? {});
  if (entries.length === 0) return [];
  return [
    'Why:',
    ...entries.map(([address, causes]) => terminalSafe(`  ${address}: ${causes.map((c) => causeText(c)).join('; ')}`)),
  ];
}

/** The documented `--json` format (version 1); every value is already masked. */
export function checkReportJson(outcomes: ReportedOutcome[]): object {
  return {
    version: 1,
    exitCode: checkExitCode(outcomes),
    stacks: outcomes.map((o) => {
      const base = { stack: o.stack, status: o.status, runId: 'run' in o && o.run ? o.run.id : null };
      switch (o.status) {
        case 'drifted':
        case 'pending_approval':
          return {
            ...base,
            kind: o.run.kind ?? null,
            isNew: o.isNew,
            notConverging: o.notConverging ?? null,
            fingerprint: o.analysis.fingerprint,
            counts: o.analysis.counts,
            changes: withCauses(o.analysis, o.analysis.changes),
            drift: withCauses(o.analysis, o.analysis.drift),
            outputs: o.analysis.outputs,
            policy: policyJson(o.policy),
          };
        case 'no_changes':
          return { ...base, resolved: o.resolved, fingerprint: o.analysis.fingerprint };
        case 'errored':
          return { ...base, error: o.error, stderrTail: o.stderrTail, ...(o.finding ? { finding: o.finding } : {}) };
        case 'interrupted':
          return { ...base, error: o.run.error ?? 'interrupted' };
        case 'skipped':
          return { ...base, error: o.reason };
        default:
          // 'blocked': the last status, so a new one fails to compile here (no `reason`).
          return { ...base, error: o.reason };
      }
    }),
  };
}
