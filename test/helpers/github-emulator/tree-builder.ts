/**
 * POST /git/trees as GitHub does it: entries are full paths applied on `base_tree` (nested directories
 * made or replaced as needed, `sha: null` deletes), validated like GitHub's 422s. The result is written
 * through a throwaway index (GIT_INDEX_FILE + update-index --index-info + write-tree).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GitObjects, ObjectType } from './git-objects.js';
import { unprocessable, type Json } from './http.js';

const MODES: Record<string, ObjectType> = {
  '100644': 'blob',
  '100755': 'blob',
  '120000': 'blob',
  '040000': 'tree',
  '160000': 'commit',
};

interface IndexEntry {
  mode: string;
  sha: string;
}

type Edit = { path: string; mode: string; type: ObjectType } & ({ sha: string | null } | { content: string });

export async function buildTree(git: GitObjects, baseTree: unknown, entries: unknown): Promise<string> {
  if (baseTree !== undefined && (typeof baseTree !== 'string' || (await git.typeOf(baseTree)) !== 'tree')) {
    throw unprocessable('base_tree is not a valid tree oid');
  }
  if (!Array.isArray(entries)) throw unprocessable('Invalid request.\n\n"tree" wasn\'t supplied.');
  const edits = entries.map(readEdit);
  const index = baseTree ? await flatten(git, baseTree as string) : new Map<string, IndexEntry>();
  for (const edit of edits) await apply(git, index, edit);
  return writeIndex(git, index);
}

function readEdit(raw: unknown): Edit {
  const entry = (typeof raw === 'object' && raw !== null ? raw : {}) as Json;
  const { path, mode, type } = entry;
  if (typeof path !== 'string' || !isCleanPath(path))
    throw unprocessable('tree.path contains a malformed path component');
  if (typeof mode !== 'string' || !MODES[mode]) throw unprocessable(`tree.mode ${String(mode)} is not a valid mode`);
  if (type !== MODES[mode]) throw unprocessable(`tree.type ${String(type)} does not match mode ${mode}`);
  const kind: ObjectType = MODES[mode];
  const hasSha = 'sha' in entry;
  const hasContent = 'content' in entry;
  if (hasSha === hasContent) throw unprocessable('Must supply either tree.sha or tree.content');
  if (hasContent) {
    if (typeof entry.content !== 'string' || kind !== 'blob')
      throw unprocessable('tree.content is only valid for blobs');
    return { path, mode, type: kind, content: entry.content };
  }
  if (entry.sha !== null && typeof entry.sha !== 'string') throw unprocessable('tree.sha must be a string or null');
  return { path, mode, type: kind, sha: entry.sha as string | null };
}

function isCleanPath(path: string): boolean {
  return path.split('/').every((part) => part !== '' && part !== '.' && part !== '..' && part !== '.git');
}

/** Every blob and submodule under `tree`, by full path. */
async function flatten(git: GitObjects, tree: string, prefix = ''): Promise<Map<string, IndexEntry>> {
  const listed = await git.run(['ls-tree', '-r', '-z', '--full-tree', tree]);
  const entries = new Map<string, IndexEntry>();
  for (const line of listed.stdout.split('\0').filter(Boolean)) {
    const [meta, path] = line.split('\t') as [string, string];
    const [mode, , sha] = meta.split(' ') as [string, string, string];
    entries.set(prefix + path, { mode, sha });
  }
  return entries;
}

async function apply(git: GitObjects, index: Map<string, IndexEntry>, edit: Edit): Promise<void> {
  removeUnder(index, edit.path);
  if ('sha' in edit && edit.sha === null) return;
  // A file where a directory was (or the reverse) replaces it, as on GitHub.
  const parts = edit.path.split('/');
  for (let i = 1; i < parts.length; i++) index.delete(parts.slice(0, i).join('/'));
  const sha = 'content' in edit ? await git.writeBlob(Buffer.from(edit.content, 'utf8')) : edit.sha!;
  if ('sha' in edit && (await git.typeOf(sha)) !== edit.type && edit.type !== 'commit') {
    throw unprocessable(`tree.sha ${sha} is not a valid ${edit.type}`);
  }
  if (edit.type === 'tree') {
    for (const [path, entry] of await flatten(git, sha, `${edit.path}/`)) index.set(path, entry);
  } else {
    index.set(edit.path, { mode: edit.mode, sha });
  }
}

function removeUnder(index: Map<string, IndexEntry>, path: string): void {
  for (const key of [...index.keys()]) if (key === path || key.startsWith(`${path}/`)) index.delete(key);
}

async function writeIndex(git: GitObjects, index: Map<string, IndexEntry>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'github-emulator-index-'));
  try {
    const env = { GIT_INDEX_FILE: join(dir, 'index') };
    const lines = [...index].map(([path, e]) => `${e.mode} ${e.sha}\t${path}\n`).join('');
    const steps: [string[], string?][] = [
      [['read-tree', '--empty']],
      [['update-index', '--index-info'], lines],
      [['write-tree']],
    ];
    let last = '';
    for (const [args, input] of steps) {
      const result = await git.run(args, { env, ...(input === undefined ? {} : { input }) });
      if (!result.ok) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
      last = result.stdout.trim();
    }
    return last;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
