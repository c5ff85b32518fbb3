import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TempTree {
  dir: string;
  /** Writes `content` at `rel`, making parent dirs. */
  file(rel: string, content?: string): Promise<string>;
  mkdir(rel: string): Promise<string>;
  cleanup(): Promise<void>;
}

export async function makeTempTree(prefix = 'driftgate-config-'): Promise<TempTree> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return {
    dir,
    async file(rel, content = '') {
      const path = join(dir, rel);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, content);
      return path;
    },
    async mkdir(rel) {
      const path = join(dir, rel);
      await mkdir(path, { recursive: true });
      return path;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
