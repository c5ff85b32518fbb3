import { readdir, stat } from 'node:fs/promises';
import type { ConfigIssue } from '../domain/errors.js';

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

/**
 * A missing or empty stack dir is a warning, not a load error: at run time that stack's run errors while
 * the other stacks go on, and `driftgate validate` shows the warning up front.
 */
export async function stackDirWarning(path: string, stack: string, dir: string): Promise<ConfigIssue | undefined> {
  const info = await stat(dir).catch(() => undefined);
  if (!info)
    return { path, message: `directory ${dir} of stack "${stack}" does not exist; its runs will error until it does` };
  if (!info.isDirectory()) return { path, message: `${dir} of stack "${stack}" is not a directory` };
  if (!(await holdsTerraformFiles(dir)))
    return { path, message: `directory ${dir} of stack "${stack}" holds no *.tf files` };
  return undefined;
}
