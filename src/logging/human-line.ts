const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** Fields a person at a terminal does not need on every line. */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/**
 * One pino JSON line as a person reads it on a terminal: `warn: plan finished  stack=prod/db ms=328`.
 * An error shows its message (its stack trace stays in the JSON format). A line that is not a pino
 * record passes through unchanged.
 */
export function humanLine(line: string): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return line;
  const fields = record as Record<string, unknown>;
  const level = typeof fields.level === 'number' ? (LEVELS[fields.level] ?? String(fields.level)) : 'log';
  const pairs = Object.entries(fields)
    .filter(([key]) => !HIDDEN.has(key))
    .map(([key, value]) => `${key}=${fieldText(value)}`);
  const msg = typeof fields.msg === 'string' ? fields.msg : '';
  return `${level}: ${msg}${pairs.length ? `  ${pairs.join(' ')}` : ''}\n`;
}

function fieldText(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (value !== null && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string')
    return JSON.stringify((value as { message: string }).message);
  return JSON.stringify(value);
}
