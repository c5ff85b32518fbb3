import { readdir, readFile, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ArtifactStoreError } from '../../domain/errors.js';
import type { ArtifactStore, StoredArtifact } from '../../ports/artifacts.js';
import { checkArtifactKey, sha256Hex, toBuffer, verifySha256 } from './artifact-key.js';
import { ensurePrivateDir, ensurePrivatePath, writeFileAtomic } from './private-files.js';

export interface LocalArtifactStoreOptions {
  dir: string;
  /** Stamped as each file's mtime, which `prune` compares against. */
  now?: () => Date;
}

const CAUSES: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOENT: 'no such file',
  ENOTDIR: 'a path component is not a directory',
  EISDIR: 'is a directory',
};

function storeError(action: string, what: string, location: string, err: unknown): ArtifactStoreError {
  if (err instanceof ArtifactStoreError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  const cause = code ? `${code} (${CAUSES[code] ?? (err as Error).message})` : String(err);
  return new ArtifactStoreError(`cannot ${action} ${what} in ${location}: ${cause}`, { cause: err });
}

/** Saved plans hold secrets in clear: files are 0600 in 0700 directories, checked on every write. */
export function createLocalArtifactStore(options: LocalArtifactStoreOptions): ArtifactStore {
  const root = resolve(options.dir);
  const now = options.now ?? (() => new Date());
  const pathOf = (key: string) => join(root, checkArtifactKey(key));
  // The recorded checksum sits beside the file under a dot name, which no key can address.
  const shaPathOf = (path: string) => join(dirname(path), `.${basename(path)}.sha256`);

  async function put(key: string, body: Buffer | string): Promise<StoredArtifact> {
    const path = pathOf(key);
    const data = toBuffer(body);
    const sha256 = sha256Hex(data);
    try {
      await ensurePrivateDir(root);
      await ensurePrivatePath(root, dirname(path));
      // Checksum first: a crash between the renames leaves a mismatch (refused), never an unchecked file.
      await writeFileAtomic(shaPathOf(path), Buffer.from(sha256));
      await writeFileAtomic(path, data, now());
    } catch (err) {
      throw storeError('write', `artifact ${key}`, root, err);
    }
    return { key, sha256, size: data.length };
  }

  async function get(key: string, expectedSha256?: string): Promise<Buffer> {
    const path = pathOf(key);
    let data: Buffer;
    let recorded: string | undefined;
    try {
      data = await readFile(path);
      recorded = await readFile(shaPathOf(path), 'utf8').then(
        (text) => text.trim(),
        (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : Promise.reject(err)),
      );
    } catch (err) {
      throw storeError('read', `artifact ${key}`, root, err);
    }
    return verifySha256(key, data, expectedSha256 ?? recorded ?? 'unrecorded (checksum file missing)');
  }

  async function remove(key: string): Promise<void> {
    const path = pathOf(key);
    try {
      await rm(path, { force: true });
      await rm(shaPathOf(path), { force: true });
    } catch (err) {
      throw storeError('delete', `artifact ${key}`, root, err);
    }
  }

  /** Deletes files (with their checksums and stray temp files) last written before `olderThan`. */
  async function prune(olderThan: Date): Promise<number> {
    try {
      return await pruneDir(root, olderThan, true);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw storeError('prune', 'artifacts', root, err);
    }
  }

  async function pruneDir(dir: string, olderThan: Date, isRoot: boolean): Promise<number> {
    let removed = 0;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        removed += await pruneDir(path, olderThan, false);
      } else if (entry.name.startsWith('.')) {
        const orphanTemp = entry.name.includes('.tmp-') && (await stat(path)).mtime < olderThan;
        if (orphanTemp) await rm(path, { force: true });
      } else if ((await stat(path)).mtime < olderThan) {
        await rm(path, { force: true });
        await rm(shaPathOf(path), { force: true });
        removed++;
      }
    }
    if (!isRoot) await rmdir(dir).catch(() => undefined); // only succeeds once empty
    return removed;
  }

  return { location: root, put, get, delete: remove, prune };
}
