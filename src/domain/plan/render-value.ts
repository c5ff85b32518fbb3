/** Values of a masked diff as the short literals terraform users read. */
import { SENSITIVE_PLACEHOLDER, UNKNOWN_PLACEHOLDER, type DiffValue } from './model.js';

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
