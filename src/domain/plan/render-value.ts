/** Values of a masked diff as the short literals terraform users read. */
import { SENSITIVE_PLACEHOLDER, UNKNOWN_PLACEHOLDER, type DiffValue, type JsonChange, type JsonDiff } from './model.js';

/** Long values (policies, certificates) are cut: the diff is a summary, the plan file is the record. */
export const MAX_VALUE_CHARS = 200;

export function formatLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  const text =
    typeof value === 'string' && (value === SENSITIVE_PLACEHOLDER || value === UNKNOWN_PLACEHOLDER)
      ? value
      : JSON.stringify(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}

export function formatDiffValue(value: DiffValue): string {
  switch (value.kind) {
    case 'absent':
      return 'null';
    case 'sensitive':
      return SENSITIVE_PLACEHOLDER;
    case 'unknown':
      return UNKNOWN_PLACEHOLDER;
    case 'value':
      return formatLiteral(value.value);
  }
}

/** What stands for a JSON-encoded attribute's two strings: the count of changes listed beneath it. */
export function formatJsonSummary(json: JsonDiff): string {
  const n = json.changes.length + json.omitted;
  if (n === 0) return '(JSON) same document: only key order, spacing or single values written as lists differ';
  return `(JSON) ${n} change${n === 1 ? '' : 's'} inside:`;
}

/** One change inside a JSON-encoded attribute, as `+ path = value`, `- path = value` or `~ path = a -> b`. */
export function formatJsonChange(change: JsonChange): string {
  const path = change.path === '' ? '(document)' : change.path;
  if (change.before.kind === 'absent') return `+ ${path} = ${formatDiffValue(change.after)}`;
  if (change.after.kind === 'absent') return `- ${path} = ${formatDiffValue(change.before)}`;
  return `~ ${path} = ${formatDiffValue(change.before)} -> ${formatDiffValue(change.after)}`;
}
