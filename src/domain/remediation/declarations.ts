/**
 * Which of a stack's files declares a block (`resource "t" "n"`, `variable "v"`, a `locals` block
 * setting a name): found by parsing, so that comments and strings that merely mention it do not count.
 */
import { type BlockItem, parseBody } from './hcl-body.js';
import { tokenize } from './hcl-tokens.js';

export interface StackFile {
  path: string;
  text: string;
}

function topBlocks(text: string): BlockItem[] {
  try {
    const tokens = tokenize(text);
    return parseBody({ text, tokens }, 0, tokens.length).filter((i): i is BlockItem => i.kind === 'block');
  } catch {
    // A file the tokenizer cannot read declares nothing we could rewrite.
    return [];
  }
}

function filesWhere(files: readonly StackFile[], match: (block: BlockItem) => boolean): string[] {
  return files.filter((f) => topBlocks(f.text).some(match)).map((f) => f.path);
}

export function filesDeclaringResource(files: readonly StackFile[], type: string, name: string): string[] {
  return filesWhere(files, (b) => b.type === 'resource' && b.labels[0] === type && b.labels[1] === name);
}

export function filesDeclaringVariable(files: readonly StackFile[], name: string): string[] {
  return filesWhere(files, (b) => b.type === 'variable' && b.labels[0] === name);
}

export function filesDeclaringLocal(files: readonly StackFile[], name: string): string[] {
  return filesWhere(files, (b) => b.type === 'locals' && b.items.some((i) => i.kind === 'attribute' && i.name === name));
}
