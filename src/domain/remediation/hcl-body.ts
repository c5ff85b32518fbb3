/**
 * The structure of an HCL body over tokens: attributes (name and the token span of their value) and
 * blocks (type, labels, the tokens of their braces and their own body). Expressions are not parsed here;
 * a value is only delimited, the way terraform does: up to the newline that ends it outside brackets.
 */
import { decodeString, type Token, tokenText } from './hcl-tokens.js';

export interface AttributeItem {
  kind: 'attribute';
  name: string;
  nameToken: Token;
  /** Token indices of the value: [valueFrom, valueTo), trailing comments excluded. */
  valueFrom: number;
  valueTo: number;
}

export interface BlockItem {
  kind: 'block';
  type: string;
  labels: string[];
  typeToken: Token;
  /** Token indices of `{` and its matching `}`. */
  open: number;
  close: number;
  items: BodyItem[];
}

export type BodyItem = AttributeItem | BlockItem;

const OPENERS = new Set(['{', '[', '(']);
const CLOSERS = new Set(['}', ']', ')']);

export interface Source {
  text: string;
  tokens: Token[];
}

export function punct(src: Source, index: number): string | undefined {
  const t = src.tokens[index];
  return t?.kind === 'punct' ? tokenText(src.text, t) : undefined;
}

/** Index of the token closing the bracket opened at `open` (or `limit` when unbalanced). */
export function matchingClose(src: Source, open: number, limit: number): number {
  let depth = 0;
  for (let i = open; i < limit; i++) {
    const p = punct(src, i);
    if (p !== undefined && OPENERS.has(p)) depth++;
    else if (p !== undefined && CLOSERS.has(p) && --depth === 0) return i;
  }
  return limit;
}

/** Next index at or after `i` that is not a comment (newlines count unless `skipNewlines`). */
export function nextSignificant(src: Source, i: number, limit: number, skipNewlines = false): number {
  while (i < limit) {
    const kind = src.tokens[i]!.kind;
    if (kind !== 'comment' && !(skipNewlines && kind === 'newline')) return i;
    i++;
  }
  return limit;
}

/** Where the expression starting at `from` ends: a newline, `,` or enclosing `}` outside brackets. */
export function expressionEnd(src: Source, from: number, limit: number): number {
  let i = from;
  while (i < limit) {
    const t = src.tokens[i]!;
    const p = punct(src, i);
    if (t.kind === 'newline' || p === '}' || p === ',') return i;
    i = p !== undefined && OPENERS.has(p) ? matchingClose(src, i, limit) + 1 : i + 1;
  }
  return limit;
}

/** The last index + 1 of a non-comment token in [from, to). */
function trimComments(src: Source, from: number, to: number): number {
  while (to > from && src.tokens[to - 1]!.kind === 'comment') to--;
  return to;
}

/** The attributes and blocks of the body in token range [from, to). */
export function parseBody(src: Source, from: number, to: number): BodyItem[] {
  const items: BodyItem[] = [];
  let i = nextSignificant(src, from, to, true);
  while (i < to) {
    const t = src.tokens[i]!;
    if (t.kind !== 'ident') {
      i = nextSignificant(src, i + 1, to, true);
      continue;
    }
    const after = nextSignificant(src, i + 1, to);
    if (punct(src, after) === '=') {
      const valueFrom = nextSignificant(src, after + 1, to);
      const end = expressionEnd(src, valueFrom, to);
      items.push({
        kind: 'attribute',
        name: tokenText(src.text, t),
        nameToken: t,
        valueFrom,
        valueTo: trimComments(src, valueFrom, end),
      });
      i = nextSignificant(src, end, to, true);
      continue;
    }
    const labels: string[] = [];
    let j = after;
    while (j < to && (src.tokens[j]!.kind === 'ident' || src.tokens[j]!.kind === 'string')) {
      const raw = tokenText(src.text, src.tokens[j]!);
      labels.push(src.tokens[j]!.kind === 'string' ? decodeString(raw) : raw);
      j = nextSignificant(src, j + 1, to);
    }
    if (punct(src, j) !== '{') {
      i = nextSignificant(src, j + 1, to, true);
      continue;
    }
    const close = matchingClose(src, j, to);
    items.push({
      kind: 'block',
      type: tokenText(src.text, t),
      labels,
      typeToken: t,
      open: j,
      close,
      items: parseBody(src, j + 1, close),
    });
    i = nextSignificant(src, close + 1, to, true);
  }
  return items;
}
