/**
 * HCL source for a JSON-like value, laid out the way `terraform fmt` leaves it: non-empty maps one entry
 * a line with `=` aligned across runs of single-line entries (a multi-line entry breaks the run, as in
 * fmt), lists of scalars on one line, other lists one item a line with trailing commas. `indent` is the
 * indentation of the line the value starts on; nested lines get two more spaces per level.
 */

const BARE_KEY = /^[A-Za-z_][\w-]*$/;
/** Bare words that would not read back as a plain key. */
const KEYWORDS = new Set(['for', 'if', 'in', 'true', 'false', 'null']);

export function quoteString(value: string): string {
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    const code = c.charCodeAt(0);
    if (c === '\\' || c === '"') out += `\\${c}`;
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if ((c === '$' || c === '%') && value[i + 1] === '{') out += c + c;
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += c;
  }
  return `${out}"`;
}

export function mapKey(key: string): string {
  return BARE_KEY.test(key) && !KEYWORDS.has(key) ? key : quoteString(key);
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

function scalar(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return quoteString(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`${value} has no HCL literal`);
    return String(value);
  }
  if (typeof value === 'bigint') return value.toString();
  throw new TypeError(`a ${typeof value} has no HCL literal`);
}

/** Lines `key = value` with `=` aligned over each run of single-line entries. */
export function alignEntries(entries: { key: string; value: string }[], indent: string): string[] {
  const lines: string[] = [];
  let run: { key: string; value: string }[] = [];
  const flush = () => {
    const width = Math.max(0, ...run.map((e) => e.key.length));
    for (const e of run) lines.push(`${indent}${e.key.padEnd(width)} = ${e.value}`);
    run = [];
  };
  for (const e of entries) {
    if (e.value.includes('\n')) {
      flush();
      lines.push(`${indent}${e.key} = ${e.value}`);
    } else run.push(e);
  }
  flush();
  return lines;
}

export function hclLiteral(value: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every(isScalar)) return `[${value.map(scalar).join(', ')}]`;
    return `[\n${value.map((v) => `${inner}${hclLiteral(v, inner)},\n`).join('')}${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return '{}';
    const lines = alignEntries(
      entries.map(([k, v]) => ({ key: mapKey(k), value: hclLiteral(v, inner) })),
      inner,
    );
    return `{\n${lines.join('\n')}\n${indent}}`;
  }
  return scalar(value);
}
