import { constants } from 'node:fs';
import { access, readdir, stat } from 'node:fs/promises';
import type { ConfigIssue } from '../domain/errors.js';
import { stackDirKey, stackDirMessage, type StackDirProblem } from '../domain/stack-dir.js';
import type { Stack } from '../domain/stack.js';

/** Root-module file names terraform and OpenTofu read. */
const MODULE_FILE = /\.(tf|tf\.json|tofu|tofu\.json)$/;

export async function holdsTerraformFiles(dir: string): Promise<boolean> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.some((e) => (e.isFile() || e.isSymbolicLink()) && MODULE_FILE.test(e.name));
  } catch {
    return false;
  }
}

const codeOf = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? String(err);

/**
 * What keeps terraform from working in `dir`, as the user driftgate runs as: it must exist, be a directory
 * driftgate may enter, list and write (`.terraform`, the lock file), and hold a root module.
 */
export async function inspectStackDir(dir: string): Promise<StackDirProblem | undefined> {
  const info = await stat(dir).catch((err: unknown) => codeOf(err));
  if (typeof info === 'string') {
    if (info === 'ENOENT' || info === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'unreadable', code: info }; // e.g. EACCES: a parent directory may not be entered
  }
  if (info.isFile()) return { kind: 'file' };
  if (!info.isDirectory()) return { kind: 'not_directory' };
  const entries = await access(dir, constants.R_OK | constants.X_OK)
    .then(() => readdir(dir, { withFileTypes: true }))
    .catch((err: unknown) => codeOf(err));
  if (typeof entries === 'string') return { kind: 'unreadable', code: entries };
  if (!entries.some((e) => (e.isFile() || e.isSymbolicLink()) && MODULE_FILE.test(e.name)))
    return { kind: 'no_module_files' };
  const writable = await access(dir, constants.W_OK).then(
    () => undefined,
    (err: unknown) => codeOf(err),
  );
  if (writable) return { kind: 'read_only', code: writable };
  return undefined;
}

/**
 * A stack dir terraform cannot use is a warning, not a load error: at run time that stack's run errors
 * with the same words while the other stacks go on, and `driftgate validate` shows it up front.
 */
export async function stackDirWarning(
  stack: Pick<Stack, 'name' | 'dir' | 'configKey'>,
): Promise<ConfigIssue | undefined> {
  const problem = await inspectStackDir(stack.dir);
  return problem && { path: stackDirKey(stack), message: stackDirMessage(stack.name, stack.dir, problem) };
}
