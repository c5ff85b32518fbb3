const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** Fields a person at a terminal does not need on every line. */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/**
 * Terminal escape sequences (CSI `ESC[…`, OSC `ESC]…`, and their 8-bit forms) and then every other C0
 * and C1 control character but tab and newline. A line logs what others wrote (terraform's stderr, a
 * stack or resource name, a change event's fields): on a terminal, raw, such a sequence could recolour,
 * clear or retitle the screen, or hide or forge what the line says.
 */
const ESCAPE_SEQUENCE = new RegExp(
  [
    '(?:\u001b\\[|\u009b)[0-?]*[ -/]*[@-~]', // CSI: colours, cursor moves, clearing the screen
    '(?:\u001b\\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\\\|\u009c)?', // OSC: a window title, a link
    '\u001b[ -/]*[0-~]', // any other escape
  ].join('|'),
  'g',
);
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
export function stripControls(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '');
}

/**
 * One pino JSON line as a person reads it on a terminal: `warn: plan finished  stack=prod/db ms=328`.
 * An error shows its message (its stack trace stays in the JSON format). A line that is not a pino
 * record passes through, as does a message's newline; escape sequences and other control characters
 * never do (`stripControls`).
 */
export function humanLine(line: string): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return stripControls(line);
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return stripControls(line);
  const fields = record as Record<string, unknown>;
  const level = typeof fields.level === 'number' ? (LEVELS[fields.level] ?? String(fields.level)) : 'log';
  const pairs = Object.entries(fields)
    .filter(([key]) => !HIDDEN.has(key))
    .map(([key, value]) => `${stripControls(key)}=${fieldText(value)}`);
  const msg = typeof fields.msg === 'string' ? stripControls(fields.msg) : '';
  return `${level}: ${msg}${pairs.length ? `  ${pairs.join(' ')}` : ''}\n`;
}

/** JSON of a value whose strings, however deep, hold no escape sequence nor control character. */
const cleanJson = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? stripControls(v) : v));

function fieldText(value: unknown): string {
  if (typeof value === 'string') {
    const clean = stripControls(value);
    return /^[^\s"=]+$/.test(clean) ? clean : JSON.stringify(clean);
  }
  if (value !== null && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string')
    return cleanJson((value as { message: string }).message);
  return cleanJson(value);
}
