/**
 * The stack's files as the codify planner edits them. Each edit is confined to one resource block, so
 * each file is parsed once for where its blocks are, and an edit rewrites only its block's text: the cost
 * of an edit follows the size of its block, not of the file (one file may declare hundreds of resources).
 */
import type { StackFile } from './declarations.js';
import { type BlockItem, parseBody } from './hcl-body.js';
import { tokenize } from './hcl-tokens.js';
import { type AttributeEdit, type RewriteResult, rewriteAttribute } from './rewrite-attribute.js';

interface Span {
  start: number;
  end: number;
  /** 1-based line of `start`. */
  line: number;
}

interface FileState {
  text: string;
  eol: '\n' | '\r\n';
  /** Resource blocks by `type.name`; undefined until the first edit, or after one rewrote the whole file. */
  blocks?: Map<string, Span[]>;
}

export interface FileEdits {
  /** The file's text with the edits so far. */
  text(path: string): string;
  rewrite(path: string, edit: AttributeEdit): RewriteResult;
  /** The files an edit changed, with their new text. */
  changed(): StackFile[];
}

function resourceBlocks(text: string): Map<string, Span[]> {
  const blocks = new Map<string, Span[]>();
  let tokens: ReturnType<typeof tokenize>;
  try {
    tokens = tokenize(text);
  } catch {
    return blocks; // unreadable: every edit goes to rewriteAttribute, which says why
  }
  const top = parseBody({ text, tokens }, 0, tokens.length).filter(
    (i): i is BlockItem => i.kind === 'block' && i.type === 'resource',
  );
  for (const b of top) {
    const key = `${b.labels[0]}.${b.labels[1]}`;
    const span = { start: b.typeToken.start, end: tokens[b.close]!.end, line: b.typeToken.line };
    blocks.set(key, [...(blocks.get(key) ?? []), span]);
  }
  return blocks;
}

const newlines = (text: string) => text.split('\n').length - 1;

export function createFileEdits(files: readonly StackFile[]): FileEdits {
  const states = new Map<string, FileState>(
    files.map((f) => [f.path, { text: f.text, eol: f.text.includes('\r\n') ? '\r\n' : '\n' }]),
  );
  const stateOf = (path: string) => {
    const state = states.get(path);
    if (!state) throw new Error(`no stack file ${path}`);
    return state;
  };

  return {
    text: (path) => stateOf(path).text,
    rewrite(path, edit) {
      const state = stateOf(path);
      state.blocks ??= resourceBlocks(state.text);
      const spans = state.blocks.get(`${edit.resourceType}.${edit.resourceName}`);
      if (spans?.length !== 1) {
        // Missing or declared twice: the whole file, for rewriteAttribute's own explanation.
        const whole = rewriteAttribute(state.text, edit);
        if (whole.ok) Object.assign(state, { text: whole.text, blocks: undefined });
        return whole;
      }
      const span = spans[0]!;
      const block = state.text.slice(span.start, span.end);
      const result = rewriteAttribute(block, edit, { firstLine: span.line, eol: state.eol });
      if (!result.ok) return result;
      state.text = state.text.slice(0, span.start) + result.text + state.text.slice(span.end);
      const shift = result.text.length - block.length;
      const lineShift = newlines(result.text) - newlines(block);
      for (const other of [...state.blocks.values()].flat()) {
        if (other.start > span.start)
          Object.assign(other, { start: other.start + shift, end: other.end + shift, line: other.line + lineShift });
      }
      span.end += shift;
      return { ok: true, text: state.text };
    },
    changed: () =>
      files.filter((f) => stateOf(f.path).text !== f.text).map((f) => ({ path: f.path, text: stateOf(f.path).text })),
  };
}
