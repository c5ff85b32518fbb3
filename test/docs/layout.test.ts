import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md's Layout is where a newcomer learns which room holds what: a folder added, moved or
 * renamed in src/ without it (or a file it names that is gone) fails here.
 */
const ROOT = resolve(import.meta.dirname, '../..');

interface Entry {
  /** Repository-relative folder, ending with `/`. */
  path: string;
  /** Its own line and every line below it, its nested entries' included. */
  text: string;
}

/** The fenced block under `### Layout`, read as a tree: an entry's column-0 or indented names end in `/`. */
function layoutEntries(markdown: string): Entry[] {
  const section = markdown.slice(markdown.indexOf('### Layout'));
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const entries: (Entry & { indent: number })[] = [];
  const stack: (Entry & { indent: number })[] = [];
  for (const line of block.split('\n')) {
    const named = /^( *)(\S+\/(?: \S+\/)*) /.exec(line);
    if (named && named[1]!.length < 20) {
      const indent = named[1]!.length;
      while (stack.length && stack.at(-1)!.indent >= indent) stack.pop();
      const parent = stack.at(-1)?.path ?? '';
      // `git/ github/`: two folders on one line, described together.
      for (const name of named[2]!.split(' ')) {
        const entry = { path: parent + name, text: '', indent };
        entries.push(entry);
        stack.push(entry);
      }
    }
    // Brace groups (`listeners/{actions,commands}`) name each folder.
    const expanded = line.replace(/(\S*?)\{([^}]*)\}/g, (_m, head: string, names: string) =>
      names
        .split(',')
        .map((n) => `${head}${n.trim()}/`)
        .join(' '),
    );
    for (const entry of stack) entry.text += `${expanded}\n`;
  }
  return entries;
}

function foldersOf(dir: string, depth: number): string[] {
  if (depth === 0) return [];
  return readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => [`${dir}${e.name}/`, ...foldersOf(`${dir}${e.name}/`, depth - 1)]);
}

const entries = layoutEntries(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));

describe('the Layout in docs/architecture.md', () => {
  it('names only folders that exist', () => {
    expect(entries.length).toBeGreaterThan(20);
    expect(entries.filter((e) => !existsSync(join(ROOT, e.path))).map((e) => e.path)).toEqual([]);
  });

  it('names every folder of src/ down to a room inside a room (src/adapters/store/sqlite/)', () => {
    const unnamed = foldersOf('src/', 3).filter((folder) => {
      const owner = entries.filter((e) => folder.startsWith(e.path)).sort((a, b) => b.path.length - a.path.length)[0];
      if (!owner) return true;
      if (owner.path === folder) return false;
      return !owner.text.includes(folder.slice(owner.path.length));
    });
    expect(unnamed).toEqual([]);
  });

  it('names only files that exist in the folder it names them under', () => {
    const missing = entries.flatMap((e) =>
      [...e.text.matchAll(/([\w./-]+\.ts)\b/g)]
        .map((m) => m[1]!)
        .filter(
          (file) =>
            !existsSync(join(ROOT, e.path, file)) && !foldersOf(e.path, 3).some((f) => existsSync(join(ROOT, f, file))),
        )
        .map((file) => `${e.path}${file}`),
    );
    expect([...new Set(missing)]).toEqual([]);
  });
});
