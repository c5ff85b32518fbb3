import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, rm, stat, utimes } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** Creates `dir` (0700), or tightens an existing one that is open to group or others. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { mode: DIR_MODE });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const info = await stat(dir);
  // chmod even a fresh dir: mkdir's mode is filtered through the process umask.
  if ((info.mode & 0o777) !== DIR_MODE) await chmod(dir, DIR_MODE);
}

/** Makes every directory from `root` (exclusive) down to `dir` private. */
export async function ensurePrivatePath(root: string, dir: string): Promise<void> {
  if (dir === root) return;
  await ensurePrivatePath(root, dirname(dir));
  await ensurePrivateDir(dir);
}

/**
 * Writes through a temp file in the same directory and renames it into place, so a reader sees the
 * old file or the new one, never half of one. The data is fsynced before the rename.
 */
export async function writeFileAtomic(path: string, body: Buffer, mtime?: Date): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.tmp-${randomBytes(6).toString('hex')}`);
  try {
    const handle = await open(temp, 'wx', FILE_MODE);
    try {
      await handle.writeFile(body);
      await handle.chmod(FILE_MODE);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (mtime) await utimes(temp, mtime, mtime);
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
