/**
 * A tokenizer for HCL native syntax, precise enough to rewrite a file in place: every token keeps its
 * offsets into the source, so an edit replaces exactly one span and leaves the rest byte-for-byte.
 * Whitespace other than newlines is not a token. Quoted strings are one token each, including any
 * `${...}` / `%{...}` templates inside them (which may nest strings and braces); a heredoc is one token
 * from `<<` through its terminator; comments are tokens so callers can see (and keep) them.
 */

export type TokenKind = 'ident' | 'number' | 'string' | 'heredoc' | 'comment' | 'newline' | 'punct';

export interface Token {
  kind: TokenKind;
  start: number;
  end: number;
  /** 1-based line of `start`. */
  line: number;
  /** For strings: whether a `${` or `%{` template sequence (not the `$${` / `%%{` escapes) occurs. */
  interpolated?: boolean;
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[\w-]/;
const MULTI_PUNCT = ['...', '==', '!=', '<=', '>=', '=>', '&&', '||'];

/** Index just after the `}` that closes a template whose body starts at `start`. */
function skipTemplate(text: string, start: number): number {
  let depth = 1;
  let i = start;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      i = skipString(text, i).end;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
    i++;
  }
  return i;
}

/** The end of the quoted string opening at `start`, and whether it holds a template sequence. */
function skipString(text: string, start: number): { end: number; interpolated: boolean } {
  let interpolated = false;
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '\\') i += 2;
    else if (c === '"') return { end: i + 1, interpolated };
    else if (c === '\n')
      return { end: i, interpolated }; // unterminated: terraform reports it
    else if ((c === '$' || c === '%') && next === c && text[i + 2] === '{') i += 3;
    else if ((c === '$' || c === '%') && next === '{') {
      interpolated = true;
      i = skipTemplate(text, i + 2);
    } else i++;
  }
  return { end: i, interpolated };
}

const HEREDOC_OPEN = /<<(-?)([A-Za-z_][\w-]*)\r?\n/y;

/** The end of the heredoc opening at `start` (just after its terminator word), or undefined. */
function skipHeredoc(text: string, start: number): number | undefined {
  HEREDOC_OPEN.lastIndex = start;
  const m = HEREDOC_OPEN.exec(text);
  if (!m) return undefined;
  let lineStart = HEREDOC_OPEN.lastIndex;
  while (lineStart < text.length) {
    const nl = text.indexOf('\n', lineStart);
    const lineEnd = nl === -1 ? text.length : nl;
    const line = text.slice(lineStart, lineEnd).replace(/\r$/, '');
    if (line.trim() === m[2]) return lineStart + line.indexOf(m[2]!) + m[2]!.length;
    lineStart = lineEnd + 1;
  }
  return text.length;
}

function commentEnd(text: string, i: number): number | undefined {
  const c = text[i];
  if (c === '#' || (c === '/' && text[i + 1] === '/')) {
    const nl = text.indexOf('\n', i);
    const end = nl === -1 ? text.length : nl;
    return text[end - 1] === '\r' ? end - 1 : end;
  }
  if (c === '/' && text[i + 1] === '*') {
    const close = text.indexOf('*/', i + 2);
    return close === -1 ? text.length : close + 2;
  }
  return undefined;
}

function scanToken(text: string, i: number): { kind: TokenKind; end: number; interpolated?: boolean } {
  const c = text[i]!;
  if (c === '\n') return { kind: 'newline', end: i + 1 };
  if (c === '\r' && text[i + 1] === '\n') return { kind: 'newline', end: i + 2 };
  if (c === '"') return { kind: 'string', ...skipString(text, i) };
  const comment = commentEnd(text, i);
  if (comment !== undefined) return { kind: 'comment', end: comment };
  const heredoc = c === '<' && text[i + 1] === '<' ? skipHeredoc(text, i) : undefined;
  if (heredoc !== undefined) return { kind: 'heredoc', end: heredoc };
  if (IDENT_START.test(c)) {
    let j = i + 1;
    while (j < text.length && IDENT_PART.test(text[j]!)) j++;
    return { kind: 'ident', end: j };
  }
  const number = /\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  number.lastIndex = i;
  if (number.exec(text)) return { kind: 'number', end: number.lastIndex };
  const multi = MULTI_PUNCT.find((p) => text.startsWith(p, i));
  return { kind: 'punct', end: i + (multi?.length ?? 1) };
}

/** `firstLine`: the line `text` starts on, when it is a slice of a larger file. */
export function tokenize(text: string, firstLine = 1): Token[] {
  const tokens: Token[] = [];
  let line = firstLine;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || (c === '\r' && text[i + 1] !== '\n') || c === '\uFEFF') {
      i++;
      continue;
    }
    const { kind, end, interpolated } = scanToken(text, i);
    tokens.push(
      kind === 'string'
        ? { kind, start: i, end, line, interpolated: interpolated ?? false }
        : { kind, start: i, end, line },
    );
    for (let j = i; j < end; j++) if (text.charCodeAt(j) === 10) line++;
    i = end;
  }
  return tokens;
}

/** The text a token spans. */
export function tokenText(text: string, token: Token): string {
  return text.slice(token.start, token.end);
}

/** The value of a quoted string without templates (`"a\"b"` -> `a"b`). */
export function decodeString(raw: string): string {
  const body = raw.slice(1, -1);
  return body.replace(/\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)|\$\$\{|%%\{/g, (m, esc: string | undefined) => {
    if (m === '$${') return '${';
    if (m === '%%{') return '%{';
    const e = esc ?? '';
    if (e.length > 1) return String.fromCodePoint(parseInt(e.slice(1), 16));
    return ({ n: '\n', r: '\r', t: '\t' } as Record<string, string>)[e] ?? e;
  });
}
