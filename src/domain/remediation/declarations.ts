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

/** Where a stack's files declare things; each file is parsed once, however many questions follow. */
export interface Declarations {
  resource(type: string, name: string): string[];
  variable(name: string): string[];
  local(name: string): string[];
}

export function declarationsOf(files: readonly StackFile[]): Declarations {
  const parsed = new Map<string, BlockItem[]>();
  const blocksOf = (f: StackFile) => parsed.get(f.path) ?? parsed.set(f.path, topBlocks(f.text)).get(f.path)!;
  const where = (match: (block: BlockItem) => boolean) =>
    files.filter((f) => blocksOf(f).some(match)).map((f) => f.path);
  return {
    resource: (type, name) => where((b) => b.type === 'resource' && b.labels[0] === type && b.labels[1] === name),
    variable: (name) => where((b) => b.type === 'variable' && b.labels[0] === name),
    local: (name) =>
      where((b) => b.type === 'locals' && b.items.some((i) => i.kind === 'attribute' && i.name === name)),
  };
}
