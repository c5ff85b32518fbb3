/**
 * Reads the value of an attribute as a literal, keeping token positions, or says why it is not one.
 * Only strings without templates, numbers, bools, null, and lists and maps of those count: anything
 * else (a reference, a function call, a template, a heredoc, an operator) depends on more than the text
 * in front of us, and rewriting it would silently change the configuration's intent.
 */
import { expressionEnd, matchingClose, nextSignificant, punct, type Source } from './hcl-body.js';
import { decodeString, tokenText } from './hcl-tokens.js';

interface NodeBase {
  /** Token indices [from, to). */
  from: number;
  to: number;
}
export type LiteralNode =
  | (NodeBase & { kind: 'scalar' })
  | (NodeBase & { kind: 'list'; items: LiteralNode[]; hasComments: boolean })
  | (NodeBase & { kind: 'map'; entries: MapEntry[]; hasComments: boolean });

export interface MapEntry {
  key: string;
  keyToken: number;
  value: LiteralNode;
}

export interface NotLiteral {
  notLiteral: string;
  line: number;
}

type Parsed = LiteralNode | NotLiteral;

export function isNotLiteral(p: Parsed): p is NotLiteral {
  return 'notLiteral' in p;
}

function refuse(src: Source, at: number, notLiteral: string): NotLiteral {
  return { notLiteral, line: src.tokens[at]?.line ?? src.tokens[src.tokens.length - 1]?.line ?? 1 };
}

function describeIdent(src: Source, i: number, limit: number): string {
  const name = tokenText(src.text, src.tokens[i]!);
  const after = punct(src, i + 1);
  if (after === '(') return `a function call ${name}(...)`;
  if (name === 'for') return 'a for expression';
  if (after === '.' && src.tokens[i + 2]?.kind === 'ident' && i + 2 < limit) {
    return `a reference to ${name}.${tokenText(src.text, src.tokens[i + 2]!)}`;
  }
  return `a reference to ${name}`;
}

/** Parse the collection whose bracket is at `open`; items end at `,` or newline. */
function parseCollection(src: Source, open: number, limit: number): Parsed {
  const isMap = punct(src, open) === '{';
  const close = matchingClose(src, open, limit);
  const items: LiteralNode[] = [];
  const entries: MapEntry[] = [];
  let hasComments = false;
  for (let i = open + 1; i < close; i++) if (src.tokens[i]!.kind === 'comment') hasComments = true;
  let i = nextSignificant(src, open + 1, close, true);
  while (i < close) {
    if (punct(src, i) === ',') {
      i = nextSignificant(src, i + 1, close, true);
      continue;
    }
    let valueAt = i;
    let keyToken = -1;
    if (isMap) {
      const key = src.tokens[i]!;
      if (key.kind === 'ident' && tokenText(src.text, key) === 'for') return refuse(src, i, 'a for expression');
      if (!(key.kind === 'ident' || key.kind === 'number' || (key.kind === 'string' && !key.interpolated))) {
        return refuse(src, i, 'a map with a computed key');
      }
      const sep = nextSignificant(src, i + 1, close);
      if (punct(src, sep) !== '=' && punct(src, sep) !== ':') return refuse(src, i, 'a map with a computed key');
      keyToken = i;
      valueAt = nextSignificant(src, sep + 1, close);
    }
    const end = expressionEnd(src, valueAt, close);
    const value = parseLiteral(src, valueAt, end);
    if (isNotLiteral(value)) return value;
    if (isMap) {
      const raw = tokenText(src.text, src.tokens[keyToken]!);
      entries.push({ key: src.tokens[keyToken]!.kind === 'string' ? decodeString(raw) : raw, keyToken, value });
    } else items.push(value);
    i = nextSignificant(src, end, close, true);
  }
  const base = { from: open, to: close + 1, hasComments };
  return isMap ? { kind: 'map', entries, ...base } : { kind: 'list', items, ...base };
}

function parseOne(src: Source, i: number, limit: number): Parsed {
  const t = src.tokens[i];
  if (!t || i >= limit) return refuse(src, i, 'no value');
  const text = tokenText(src.text, t);
  if (t.kind === 'string')
    return t.interpolated
      ? refuse(src, i, `a template with interpolation ${text}`)
      : { kind: 'scalar', from: i, to: i + 1 };
  if (t.kind === 'heredoc') return refuse(src, i, 'a heredoc');
  if (t.kind === 'number') return { kind: 'scalar', from: i, to: i + 1 };
  if (text === '-' && src.tokens[i + 1]?.kind === 'number') return { kind: 'scalar', from: i, to: i + 2 };
  if (t.kind === 'ident') {
    const keyword = ['true', 'false', 'null'].includes(text) && punct(src, i + 1) !== '.';
    return keyword ? { kind: 'scalar', from: i, to: i + 1 } : refuse(src, i, describeIdent(src, i, limit));
  }
  if (text === '[' || text === '{') return parseCollection(src, i, limit);
  return refuse(src, i, `an expression starting with ${text}`);
}

/** The literal spanning tokens [from, to), or why it is not one. */
export function parseLiteral(src: Source, from: number, to: number): Parsed {
  const node = parseOne(src, from, to);
  if (isNotLiteral(node)) return node;
  const rest = nextSignificant(src, node.to, to);
  return rest < to
    ? refuse(src, rest, `an expression (${tokenText(src.text, src.tokens[rest]!)} after a literal)`)
    : node;
}
