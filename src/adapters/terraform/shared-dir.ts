import { chmod, lstat, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Sandbox, takeOutFile } from './run-as.js';
import { shareWithGroup, takeInCopy } from './tree-copy.js';

/**
 * The dir a worker shares with the terraform container beside it (a pod's emptyDir, whose group is the
 * pod's fsGroup, that both containers are in). terraform's side: `home/` and the plugin cache. The
 * worker's: `runs/` (each command's files: a plan going in or out, the backend config of `init`) and
 * `checkouts/` (copies of Git checkouts), which only the worker may add to or rename in (02750), so that
 * terraform cannot swap one of them for a link into the worker's own files.
 */
export type SharedDir = Sandbox;

export async function prepareSharedDir(dir: string, pluginCacheDir: string): Promise<SharedDir> {
  const self = process.getuid?.() ?? 0;
  const home = join(dir, 'home');
  const runs = join(dir, 'runs');
  const checkouts = join(dir, 'checkouts');
  /** One of the worker's own dirs, still the one it made (not replaced by terraform since). */
  const own = async (path: string) => {
    const info = await lstat(path);
    if (!info.isDirectory() || info.uid !== self)
      throw new Error(`${path} is not the worker's own directory (uid ${self}): something else made or replaced it`);
  };
  await mkdir(dir, { recursive: true });
  for (const path of [runs, checkouts]) {
    await mkdir(path, { recursive: true });
    await own(path);
    await chmod(path, 0o2750);
    // What a worker that crashed left (the container outlives it in its pod): no job of this one's.
    for (const left of await readdir(path)) await rm(join(path, left), { recursive: true, force: true });
  }
  for (const path of [home, pluginCacheDir]) {
    await mkdir(path, { recursive: true });
    if ((await lstat(path)).uid === self) await chmod(path, 0o2770);
  }
  /** A fresh dir under `parent` that the group may write. */
  const fresh = async (parent: string, prefix: string) => {
    await own(parent);
    const made = await mkdtemp(join(parent, prefix));
    await chmod(made, 0o2770);
    return made;
  };
  return {
    home,
    async withRunDir(files, use) {
      const run = await fresh(runs, 'run-');
      try {
        for (const [name, content] of Object.entries(files)) {
          const path = join(run, name);
          await writeFile(path, content, { mode: 0o640, flag: 'wx' });
          await chmod(path, 0o640);
        }
        return await use(run);
      } finally {
        await rm(run, { recursive: true, force: true });
      }
    },
    takeOut: (path) => takeOutFile(path),
    // The worker's own clone stays in its data dir, which the terraform container does not mount.
    takeIn: async (tree) => takeInCopy(await fresh(checkouts, 'checkout-'), tree, shareWithGroup),
  };
}
