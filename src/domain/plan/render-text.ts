/**
 * A terraform-like text diff of an analysed plan, for the CLI, logs and Slack snippets. Everything in a
 * PlanAnalysis is already masked, so nothing here can reveal a secret. Destroys and replacements come
 * first in each section and are counted up front: with `maxResources` cutting a long plan, they are
 * the lines a reviewer must not miss.
 */
import type { ActionCounts, AttributeChange, OutputChange, PlanAnalysis, ResourceChange } from './model.js';
import { formatDiffValue, formatJsonChange, formatJsonSummary } from './render-value.js';

export interface RenderTextOptions {
  /** ANSI colours; off unless asked, so text pasted elsewhere stays clean. */
  color?: boolean;
  /** Resource blocks shown per section; the rest are counted in one line. */
  maxResources?: number;
}

type Tone = 'green' | 'yellow' | 'red' | 'cyan' | 'bold';
const ANSI: Record<Tone, string> = { green: '32', yellow: '33', red: '31', cyan: '36', bold: '1' };
type Paint = (text: string, tone: Tone) => string;

const plain: Paint = (text) => text;
const ansi: Paint = (text, tone) => `\u001b[${ANSI[tone]}m${text}\u001b[0m`;

/** `+1 ~2 -1 ±1 <=1` with zero counts left out; replacements apart from creates and deletes. */
export function formatCounts(counts: ActionCounts): string {
  const parts: string[] = [];
  if (counts.create) parts.push(`+${counts.create}`);
  if (counts.update) parts.push(`~${counts.update}`);
  if (counts.delete) parts.push(`-${counts.delete}`);
  if (counts.replace) parts.push(`±${counts.replace}`);
  if (counts.read) parts.push(`<=${counts.read}`);
  return parts.length ? parts.join(' ') : 'no changes';
}

const SYMBOL: Record<ResourceChange['action'], string> = {
  create: '+',
  update: '~',
  delete: '-',
  read: '<=',
  'no-op': ' ',
  replace: '-/+',
};

const TONE: Record<ResourceChange['action'], Tone> = {
  create: 'green',
  update: 'yellow',
  delete: 'red',
  read: 'cyan',
  'no-op': 'bold',
  replace: 'red',
};

function symbolOf(change: ResourceChange): string {
  return change.action === 'replace' && change.replaceOrder === 'create-first' ? '+/-' : SYMBOL[change.action];
}

function headline(change: ResourceChange, drift: boolean): string {
  const reason = change.actionReason ? ` (${change.actionReason.replaceAll('_', ' ')})` : '';
  if (drift) return change.action === 'delete' ? 'has been deleted' : 'has changed';
  switch (change.action) {
    case 'create':
      return 'will be created';
    case 'update':
      return 'will be updated in-place';
    case 'delete':
      return `will be destroyed${reason}`;
    case 'replace':
      return `must be replaced${change.replaceOrder === 'create-first' ? ' (create before destroy)' : ''}`;
    case 'read':
      return `will be read during apply${reason}`;
    case 'no-op':
      return change.importing ? 'will be imported' : `has moved from ${change.previousAddress ?? '?'}`;
  }
}

function attributeLine(attr: AttributeChange, width: number, paint: Paint): string {
  const name = attr.path.padEnd(width);
  const forces = attr.forcesReplacement ? paint(' # forces replacement', 'red') : '';
  if (attr.before.kind === 'absent') return `${paint('+', 'green')} ${name} = ${formatDiffValue(attr.after)}${forces}`;
  if (attr.after.kind === 'absent')
    return `${paint('-', 'red')} ${name} = ${formatDiffValue(attr.before)} -> null${forces}`;
  const bothSensitive = attr.before.kind === 'sensitive' && attr.after.kind === 'sensitive';
  const value = attr.json
    ? formatJsonSummary(attr.json)
    : bothSensitive
      ? formatDiffValue(attr.after)
      : `${formatDiffValue(attr.before)} -> ${formatDiffValue(attr.after)}`;
  return `${paint('~', 'yellow')} ${name} = ${value}${forces}`;
}

const JSON_TONE: Record<string, Tone> = { '+': 'green', '-': 'red', '~': 'yellow' };

/** The changes inside a JSON-encoded attribute, one a line under it; the raw strings are in the plan file. */
function jsonLines(attr: AttributeChange, paint: Paint): string[] {
  if (!attr.json) return [];
  const lines = attr.json.changes.map((c) => {
    const text = formatJsonChange(c);
    return `    ${paint(text[0]!, JSON_TONE[text[0]!] ?? 'bold')}${text.slice(1)}`;
  });
  if (attr.json.omitted > 0) lines.push(`    … ${attr.json.omitted} more change${attr.json.omitted === 1 ? '' : 's'}`);
  return lines;
}

function resourceBlock(change: ResourceChange, drift: boolean, paint: Paint): string[] {
  const tone = TONE[change.action];
  const lines = [
    `  ${paint(`# ${change.address} ${headline(change, drift)}`, change.action === 'delete' || change.action === 'replace' ? 'red' : 'bold')}`,
  ];
  if (change.previousAddress && change.action !== 'no-op') lines.push(`  # (moved from ${change.previousAddress})`);
  if (change.importing && change.action !== 'no-op') lines.push('  # (imported)');
  // A move or import alone changes no attribute: the headline says it all.
  if (change.action === 'no-op' && change.attributes.length === 0) return [...lines, ''];
  const kind = change.mode === 'data' ? 'data' : 'resource';
  const symbol = drift && change.action === 'delete' ? '-' : drift ? '~' : symbolOf(change);
  lines.push(`${paint(symbol.padStart(3), tone)} ${kind} "${change.type}" "${change.name}" {`);
  const width = Math.max(0, ...change.attributes.map((a) => a.path.length));
  for (const attr of change.attributes) {
    lines.push(`      ${attributeLine(attr, width, paint)}`);
    for (const line of jsonLines(attr, paint)) lines.push(`      ${line}`);
  }
  lines.push('    }', '');
  return lines;
}

const SEVERITY: Partial<Record<ResourceChange['action'], number>> = { delete: 0, replace: 1 };

function ordered(changes: readonly ResourceChange[]): ResourceChange[] {
  return [...changes].sort(
    (a, b) =>
      (SEVERITY[a.action] ?? 2) - (SEVERITY[b.action] ?? 2) ||
      (a.address < b.address ? -1 : a.address > b.address ? 1 : 0),
  );
}

function section(
  title: string,
  changes: readonly ResourceChange[],
  drift: boolean,
  paint: Paint,
  max: number,
): string[] {
  if (changes.length === 0) return [];
  const lines = [paint(title, 'bold'), ''];
  const shown = ordered(changes);
  for (const change of shown.slice(0, max)) lines.push(...resourceBlock(change, drift, paint));
  if (shown.length > max)
    lines.push(`  … and ${shown.length - max} more resource${shown.length - max === 1 ? '' : 's'} not shown`, '');
  return lines;
}

function destroyWarning(analysis: PlanAnalysis, paint: Paint): string[] {
  const doomed = ordered(analysis.changes).filter((c) => c.action === 'delete' || c.action === 'replace');
  if (doomed.length === 0) return [];
  const names = doomed
    .slice(0, 5)
    .map((c) => c.address)
    .join(', ');
  const more = doomed.length > 5 ? ` and ${doomed.length - 5} more` : '';
  const noun = doomed.length === 1 ? 'resource' : 'resources';
  return [paint(`! ${doomed.length} ${noun} will be destroyed or replaced: ${names}${more}`, 'red'), ''];
}

function outputLines(outputs: readonly OutputChange[], paint: Paint): string[] {
  if (outputs.length === 0) return [];
  const width = Math.max(...outputs.map((o) => o.name.length));
  const lines = [paint('Changes to Outputs:', 'bold')];
  for (const o of outputs) {
    const symbol = SYMBOL[o.action === 'replace' ? 'update' : o.action];
    const value =
      o.action === 'create'
        ? formatDiffValue(o.after)
        : o.action === 'delete'
          ? `${formatDiffValue(o.before)} -> null`
          : o.sensitive
            ? formatDiffValue({ kind: 'sensitive' })
            : `${formatDiffValue(o.before)} -> ${formatDiffValue(o.after)}`;
    lines.push(`  ${paint(symbol, TONE[o.action])} ${o.name.padEnd(width)} = ${value}`);
  }
  lines.push('');
  return lines;
}

export function renderPlanText(analysis: PlanAnalysis, options: RenderTextOptions = {}): string {
  const paint = options.color ? ansi : plain;
  const max = options.maxResources ?? Number.POSITIVE_INFINITY;
  const lines: string[] = [];
  // terraform also calls an empty plan not applyable; only a plan with changes needs the warning.
  if (!analysis.applyable && analysis.hasChanges) {
    lines.push(paint('! This plan cannot be applied: terraform reported errors while planning.', 'red'), '');
  }
  lines.push(...section('Changes outside of Terraform (drift):', analysis.drift, true, paint, max));
  if (analysis.changes.length) lines.push(...destroyWarning(analysis, paint));
  lines.push(...section('Terraform will perform the following actions:', analysis.changes, false, paint, max));
  lines.push(...outputLines(analysis.outputs, paint));
  lines.push(
    analysis.hasChanges
      ? `Plan: ${formatCounts(analysis.counts)}`
      : 'No changes. Your infrastructure matches the configuration.',
  );
  return `${lines.join('\n')}\n`;
}
