/**
 * Writes one real-world value back into the HCL of a resource, in place: only the span of the value
 * changes (plus fmt's alignment padding on the lines around it), so comments, formatting, other
 * resources and line endings stay byte-for-byte. A value that is not a literal in the file is never
 * rewritten: the caller gets a reason naming what was found and on which line.
 */
import { type AttributeItem, type BlockItem, parseBody, type Source } from './hcl-body.js';
import { alignEntries, hclLiteral, mapKey } from './hcl-literal.js';
import { tokenize } from './hcl-tokens.js';
import { isNotLiteral, type LiteralNode, parseLiteral } from './literal-node.js';
import { realign } from './realign.js';

export type AttributePath = (string | number)[];

export interface AttributeEdit {
  resourceType: string;
  resourceName: string;
  path: AttributePath;
  value: unknown;
  /**
   * Set when the provider schema says the nested blocks on the path are lists: only then does
   * `ingress[1]` mean the second `ingress` block in the file. A set's order in the plan need not follow
   * the file, so without it a position is only trusted when there is a single block of that type.
   */
  orderedBlocks?: boolean;
}

export type RewriteResult = { ok: true; text: string } | { ok: false; reason: string };

interface Splice {
  from: number;
  to: number;
  text: string;
}

type Step = Splice | { reason: string };

interface Walk {
  src: Source;
  edit: AttributeEdit;
  where: string;
}

export function formatPath(path: AttributePath): string {
  return path
    .map((p, i) =>
      typeof p === 'number' ? `[${p}]` : /^[A-Za-z_][\w-]*$/.test(p) ? `${i ? '.' : ''}${p}` : `[${JSON.stringify(p)}]`,
    )
    .join('');
}

function indentAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/** Offset of the end of the line holding token index `i` (before its newline and after any comment). */
function lineEndAfter(src: Source, i: number): number {
  let j = i;
  while (j < src.tokens.length && src.tokens[j]!.kind !== 'newline') j++;
  return j < src.tokens.length ? src.tokens[j]!.start : src.text.length;
}

function replaceNode(w: Walk, node: LiteralNode): Step {
  if (node.kind !== 'scalar' && node.hasComments) {
    return {
      reason: `${w.where} holds comments inside its value (line ${w.src.tokens[node.from]!.line}) that a rewrite would lose`,
    };
  }
  const from = w.src.tokens[node.from]!.start;
  return { from, to: w.src.tokens[node.to - 1]!.end, text: hclLiteral(w.edit.value, indentAt(w.src.text, from)) };
}

function addMapKey(w: Walk, map: LiteralNode & { kind: 'map' }, key: string): Step {
  const { src } = w;
  const open = src.tokens[map.from]!;
  const close = src.tokens[map.to - 1]!;
  const baseIndent = indentAt(src.text, open.start);
  if (open.line === close.line) {
    if (map.hasComments)
      return { reason: `${w.where}: the map on line ${open.line} holds comments a rewrite would lose` };
    const raw = (from: number, to: number) => src.text.slice(src.tokens[from]!.start, src.tokens[to - 1]!.end);
    const entries = map.entries.map((e) => ({
      key: raw(e.keyToken, e.keyToken + 1),
      value: raw(e.value.from, e.value.to),
    }));
    entries.push({ key: mapKey(key), value: hclLiteral(w.edit.value, `${baseIndent}  `) });
    return {
      from: open.start,
      to: close.end,
      text: `{\n${alignEntries(entries, `${baseIndent}  `).join('\n')}\n${baseIndent}}`,
    };
  }
  const last = map.entries[map.entries.length - 1];
  const indent = last ? indentAt(src.text, src.tokens[last.keyToken]!.start) : `${baseIndent}  `;
  const at = lineEndAfter(src, last ? last.value.to - 1 : map.from);
  return { from: at, to: at, text: `\n${indent}${mapKey(key)} = ${hclLiteral(w.edit.value, indent)}` };
}

function walkValue(w: Walk, node: LiteralNode, rest: AttributePath): Step {
  const [head, ...tail] = rest;
  if (head === undefined) return replaceNode(w, node);
  if (node.kind === 'map' && typeof head === 'string') {
    const entry = node.entries.find((e) => e.key === head);
    if (entry) return walkValue(w, entry.value, tail);
    if (tail.length === 0) return addMapKey(w, node, head);
    return {
      reason: `${w.where}: the map on line ${w.src.tokens[node.from]!.line} has no key ${JSON.stringify(head)}`,
    };
  }
  if (node.kind === 'list' && typeof head === 'number') {
    const item = node.items[head];
    if (item) return walkValue(w, item, tail);
    return {
      reason: `${w.where}: the list on line ${w.src.tokens[node.from]!.line} has ${node.items.length} items, not ${head + 1}`,
    };
  }
  const found = node.kind === 'scalar' ? 'a single value' : `a ${node.kind}`;
  return {
    reason: `${w.where}: ${JSON.stringify(head)} does not index ${found} (line ${w.src.tokens[node.from]!.line})`,
  };
}

function walkAttribute(w: Walk, attr: AttributeItem, rest: AttributePath): Step {
  const literal = parseLiteral(w.src, attr.valueFrom, attr.valueTo);
  if (isNotLiteral(literal))
    return { reason: `${w.where} is set by ${literal.notLiteral} (line ${literal.line}), not a literal` };
  return walkValue(w, literal, rest);
}

function addAttribute(w: Walk, block: BlockItem, name: string): Step {
  const { src } = w;
  const open = src.tokens[block.open]!;
  const close = src.tokens[block.close]!;
  const attrs = block.items.filter((i): i is AttributeItem => i.kind === 'attribute');
  const last = attrs[attrs.length - 1];
  const blockIndent = indentAt(src.text, src.tokens[block.open]!.start);
  if (!last && open.line === close.line) {
    if (block.close !== block.open + 1)
      return { reason: `${w.where}: the block on line ${open.line} is on one line; add ${name} by hand` };
    const indent = `${blockIndent}  `;
    return {
      from: open.end,
      to: close.start,
      text: `\n${indent}${name} = ${hclLiteral(w.edit.value, indent)}\n${blockIndent}`,
    };
  }
  const indent = last ? indentAt(src.text, last.nameToken.start) : `${blockIndent}  `;
  const at = lineEndAfter(src, last ? last.valueTo - 1 : block.open);
  return { from: at, to: at, text: `\n${indent}${name} = ${hclLiteral(w.edit.value, indent)}` };
}

function walkBody(w: Walk, block: BlockItem, rest: AttributePath): Step {
  const [head, next, ...tail] = rest;
  if (typeof head !== 'string') return { reason: `${w.where}: ${String(head)} does not name an attribute or block` };
  const attr = block.items.find((i): i is AttributeItem => i.kind === 'attribute' && i.name === head);
  if (attr) return walkAttribute(w, attr, rest.slice(1));
  const blocks = block.items.filter(
    (i): i is BlockItem => i.kind === 'block' && i.type === head && i.labels.length === 0,
  );
  const dynamic = block.items.find(
    (i): i is BlockItem => i.kind === 'block' && i.type === 'dynamic' && i.labels[0] === head,
  );
  if (dynamic)
    return { reason: `${w.where}: ${head} blocks come from a dynamic block (line ${dynamic.typeToken.line})` };
  if (blocks.length === 0) {
    if (rest.length === 1) return addAttribute(w, block, head);
    return { reason: `${w.where}: no ${head} in the block on line ${block.typeToken.line}` };
  }
  const lines = blocks.map((b) => b.typeToken.line).join(', ');
  let chosen: BlockItem | undefined;
  let after: AttributePath;
  if (typeof next === 'number') {
    if (blocks.length > 1 && !w.edit.orderedBlocks) {
      return {
        reason: `${w.where}: ${blocks.length} ${head} blocks (lines ${lines}) and no schema saying they are ordered; matching by position is ambiguous`,
      };
    }
    chosen = blocks[next];
    after = tail;
    if (!chosen)
      return { reason: `${w.where}: ${blocks.length} ${head} block(s) (lines ${lines}), no block [${next}]` };
  } else {
    if (blocks.length > 1)
      return { reason: `${w.where}: ${blocks.length} ${head} blocks (lines ${lines}); say which by position` };
    chosen = blocks[0]!;
    after = rest.slice(1);
  }
  if (after.length === 0)
    return {
      reason: `${w.where}: rewriting a whole ${head} block (line ${chosen.typeToken.line}) is not supported; rewrite its attributes`,
    };
  return walkBody(w, chosen, after);
}

export interface RewriteOptions {
  /** The line `source` starts on, when it is one block of a larger file: reasons name the file's lines. */
  firstLine?: number;
  /** The file's line ending, when `source` is too short to show it. */
  eol?: '\n' | '\r\n';
}

export function rewriteAttribute(source: string, edit: AttributeEdit, options: RewriteOptions = {}): RewriteResult {
  const src: Source = { text: source, tokens: tokenize(source, options.firstLine) };
  const address = `${edit.resourceType}.${edit.resourceName}`;
  const where = `${address}.${formatPath(edit.path)}`;
  const resources = parseBody(src, 0, src.tokens.length).filter(
    (i): i is BlockItem =>
      i.kind === 'block' &&
      i.type === 'resource' &&
      i.labels[0] === edit.resourceType &&
      i.labels[1] === edit.resourceName,
  );
  if (resources.length !== 1) {
    const lines = resources.map((r) => r.typeToken.line).join(', ');
    return {
      ok: false,
      reason: resources.length
        ? `${address} is declared ${resources.length} times (lines ${lines})`
        : `no resource ${address} in this file`,
    };
  }
  if (edit.path.length === 0) return { ok: false, reason: `${address}: an empty path names no attribute` };
  const repeated = resources[0]!.items.find(
    (i) => i.kind === 'attribute' && (i.name === 'count' || i.name === 'for_each'),
  );
  if (repeated?.kind === 'attribute') {
    return {
      ok: false,
      reason: `${address} has ${repeated.name} (line ${repeated.nameToken.line}): one value written here would apply to every instance`,
    };
  }
  let step: Step;
  try {
    step = walkBody({ src, edit, where }, resources[0]!, edit.path);
  } catch (err) {
    return { ok: false, reason: `${where}: ${(err as Error).message}` };
  }
  if ('reason' in step) return { ok: false, reason: step.reason };
  const eol = options.eol ?? (source.includes('\r\n') ? '\r\n' : '\n');
  const inserted = step.text.replace(/\n/g, eol);
  const text = source.slice(0, step.from) + inserted + source.slice(step.to);
  const fromLine = source.slice(0, step.from).split('\n').length;
  return { ok: true, text: realign(text, fromLine, fromLine + inserted.split('\n').length - 1) };
}
