import { chmod, cp, lchown, lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A Git checkout copied for terraform, without `.git`: terraform never touches the clone, so a module
 * cannot plant a hook or a config that git, run by driftgate later, would execute. Links are copied as
 * links, never followed: a link in the repository must not copy driftgate's own files out.
 */
export async function copyTree(from: string, to: string): Promise<void> {
  const gitDir = join(from, '.git');
  await cp(from, to, {
    recursive: true,
    verbatimSymlinks: true,
    errorOnExist: true,
    filter: (source) => source !== gitDir,
  });
}

/** A copy of a checkout that terraform runs in, and how to remove it. */
export interface TakenIn {
  dir: string;
  remove(): Promise<void>;
}

/**
 * `tree` copied (copyTree) to `<parent>/tree` and handed to terraform's side by `handOver`; `remove`
 * deletes `parent` with it. `parent` is a fresh dir of driftgate's own, in a dir terraform cannot add to or
 * rename in, so terraform cannot swap the copy for a link into driftgate's files.
 */
export async function takeInCopy(
  parent: string,
  tree: string,
  handOver: (copy: string) => Promise<void>,
  /** Removes the copy once terraform's side may have written it (before `parent` goes). */
  removeCopy?: (copy: string) => Promise<void>,
): Promise<TakenIn> {
  const copy = join(parent, 'tree');
  const removeAll = () => rm(parent, { recursive: true, force: true });
  try {
    await copyTree(tree, copy);
    await handOver(copy);
  } catch (err) {
    // Nothing of terraform's ran in it yet.
    await removeAll();
    throw err;
  }
  return {
    dir: copy,
    async remove() {
      if (removeCopy) await removeCopy(copy);
      await removeAll();
    },
  };
}

/** Calls `visit` on `dir` and on every entry below it (links are visited, not followed). */
async function walk(dir: string, visit: (path: string, isDir: boolean, isLink: boolean) => Promise<void>) {
  await visit(dir, true, false);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await walk(path, visit);
    else await visit(path, false, entry.isSymbolicLink());
  }
}

/** The tree readable and writable by the group (the pod's fsGroup, which the terraform container is in). */
export async function shareWithGroup(dir: string): Promise<void> {
  await walk(dir, async (path, isDir, isLink) => {
    if (isLink) return;
    if (isDir) return chmod(path, 0o2770);
    // Scripts stay executable (a `local-exec` may run one), for the group too.
    const executable = ((await lstat(path)).mode & 0o100) !== 0;
    await chmod(path, executable ? 0o770 : 0o660);
  });
}

/** The tree owned by `user` (links themselves, never what they point to), its top dir closed to others. */
export async function giveToUser(dir: string, user: { uid: number; gid: number }): Promise<void> {
  await walk(dir, (path) => lchown(path, user.uid, user.gid));
  // The commit's files (a varFile may hold secrets) are for terraform's user only.
  await chmod(dir, 0o700);
}
