import { constants } from 'node:fs';
import { chmod, chown, lstat, mkdir, mkdtemp, open, readdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { execa } from 'execa';
import { join } from 'node:path';
import { giveToUser, type TakenIn, takeInCopy } from './tree-copy.js';

/**
 * terraform as another user: the modules it runs (a `local-exec`, a provider) then cannot read
 * driftgate's memory, its environment (`/proc/<pid>/environ`) or its files. Switching users needs these
 * capabilities (root has them): SETUID/SETGID to spawn as the user, CHOWN to give it its files, KILL to
 * stop what it started, DAC_OVERRIDE to read the plans it writes in its own 0700 dirs.
 */
export interface RunAs {
  uid: number;
  gid: number;
  /** The run-as user's own directory, outside driftgate's data dir. */
  dir: string;
}

const NEEDED_CAPABILITIES = [
  { bit: 0, name: 'CAP_CHOWN' },
  { bit: 1, name: 'CAP_DAC_OVERRIDE' },
  { bit: 5, name: 'CAP_KILL' },
  { bit: 6, name: 'CAP_SETGID' },
  { bit: 7, name: 'CAP_SETUID' },
] as const;

export const RUN_AS_CAPABILITIES = NEEDED_CAPABILITIES.map((c) => c.name);

export interface ProcessIdentity {
  uid: number;
  gid: number;
  /** The effective capability set (`CapEff` of /proc/self/status); undefined where it cannot be read. */
  capEff: bigint | undefined;
}

/** Who this process is and what it may do, from /proc/self/status (Linux). */
export async function currentIdentity(): Promise<ProcessIdentity> {
  const status = await readFile('/proc/self/status', 'utf8').catch(() => '');
  const hex = /^CapEff:\s*([0-9a-f]+)$/im.exec(status)?.[1];
  return { uid: process.getuid?.() ?? -1, gid: process.getgid?.() ?? -1, capEff: hex ? BigInt(`0x${hex}`) : undefined };
}

/** Why this process cannot run terraform as `runAs`; undefined when it can. */
export function runAsRefusal(runAs: Pick<RunAs, 'uid' | 'gid'>, self: ProcessIdentity): string | undefined {
  if (runAs.uid === self.uid)
    return `runAs.uid ${runAs.uid} is driftgate's own uid: terraform would read driftgate as before (no boundary); name another user, or remove runAs`;
  const missing =
    self.capEff === undefined
      ? self.uid === 0
        ? []
        : RUN_AS_CAPABILITIES
      : NEEDED_CAPABILITIES.filter((c) => ((self.capEff as bigint) & (1n << BigInt(c.bit))) === 0n).map((c) => c.name);
  if (missing.length === 0) return undefined;
  return `driftgate (uid ${self.uid}) cannot switch to uid ${runAs.uid}: it lacks ${missing.join(', ')}. Start it as root with runAs set, or give it those capabilities (systemd: AmbientCapabilities=${RUN_AS_CAPABILITIES.join(' ')}), or remove runAs to run terraform as driftgate's own user`;
}

/** Where terraform runs apart from driftgate: as another user (here), or in a container beside it (shared-dir.ts). */
export interface Sandbox {
  /** HOME of every terraform process. */
  home: string;
  /**
   * A fresh directory the run-as user owns, holding `files` (the user's, readable by it), removed after
   * `use`. The files are written before the user gets the directory, so nothing it planted is followed.
   */
  withRunDir<T>(files: Record<string, Buffer | string>, use: (dir: string) => Promise<T>): Promise<T>;
  /** A file terraform wrote: only a regular file (its user's), never a link to someone else's file. */
  takeOut(path: string): Promise<Buffer>;
  /**
   * A copy of `tree` (a Git checkout; `.git` left out) that terraform may read and write, removed by
   * `remove`: driftgate's own clone stays in its data dir, closed to terraform.
   */
  takeIn(tree: string): Promise<TakenIn>;
}

export interface RunAsSandbox extends Sandbox {
  user: { uid: number; gid: number };
}

/**
 * A file terraform wrote, read only when it is a regular file (and, given `uid`, that user's): never a
 * link it planted to a file of driftgate's.
 */
export async function takeOutFile(path: string, uid?: number): Promise<Buffer> {
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const info = await file.stat();
    if (!info.isFile() || (uid !== undefined && info.uid !== uid))
      throw new Error(`${path} is not a file terraform${uid === undefined ? '' : ` (uid ${uid})`} wrote`);
    return await file.readFile();
  } finally {
    await file.close();
  }
}

async function ownedDir(path: string, owner: { uid: number; gid: number }, mode: number): Promise<void> {
  await mkdir(path, { recursive: true, mode });
  const info = await lstat(path);
  if (!info.isDirectory()) throw new Error(`${path} is not a directory`);
  await chown(path, owner.uid, owner.gid);
  await chmod(path, mode);
}

/**
 * Lays out `runAs.dir`: the dir itself, `runs/` and `checkouts/` stay driftgate's (0711: the user passes
 * through but can neither list nor rename them), `home/` and the plugin cache are the user's.
 */
export async function prepareSandbox(runAs: RunAs, pluginCacheDir: string): Promise<RunAsSandbox> {
  const user = { uid: runAs.uid, gid: runAs.gid };
  const self = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const home = join(runAs.dir, 'home');
  const runs = join(runAs.dir, 'runs');
  const checkouts = join(runAs.dir, 'checkouts');
  await ownedDir(runAs.dir, self, 0o711);
  await ownedDir(runs, self, 0o711);
  await ownedDir(checkouts, self, 0o711);
  await ownedDir(home, user, 0o700);
  await ownedDir(pluginCacheDir, user, 0o700);
  return {
    user,
    home,
    async withRunDir(files, use) {
      const dir = await mkdtemp(join(runs, 'run-'));
      try {
        for (const [name, content] of Object.entries(files)) {
          const path = join(dir, name);
          await writeFile(path, content, { mode: 0o600, flag: 'wx' });
          await chown(path, user.uid, user.gid);
        }
        await chown(dir, user.uid, user.gid);
        return await use(dir);
      } finally {
        await removeAsUser(dir, user);
      }
    },
    takeOut: (path) => takeOutFile(path, user.uid),
    async takeIn(tree) {
      // driftgate's (0700) while the copy is made and given away: the user reaches it only once it is its.
      const parent = await mkdtemp(join(checkouts, 'checkout-'));
      return takeInCopy(
        parent,
        tree,
        async (copy) => {
          await giveToUser(copy, user);
          await chmod(parent, 0o711);
        },
        (copy) => removeAsUser(copy, user),
      );
    },
  };
}

/**
 * Run dirs and checkout copies that a process which stopped left in `runAs.dir` (a kill -9, a power cut):
 * those last changed before `staleBefore` (epoch ms), which no live run's can be: the caller passes a
 * time older than terraform's longest timeout. Other processes on this machine (a `driftgate check` beside
 * serve) share the dir, so what is younger stays. Removed as `removeAsUser` removes a run's own; returns
 * what went, and what could not.
 */
export async function sweepLeftovers(
  runAs: RunAs,
  staleBefore: number,
): Promise<{ removed: string[]; failed: { path: string; error: string }[] }> {
  const user = { uid: runAs.uid, gid: runAs.gid };
  const removed: string[] = [];
  const failed: { path: string; error: string }[] = [];
  for (const [kind, dir] of [
    ['run', join(runAs.dir, 'runs')],
    ['checkout', join(runAs.dir, 'checkouts')],
  ] as const) {
    for (const name of await readdir(dir).catch(() => [])) {
      const path = join(dir, name);
      const info = await lstat(path).catch(() => undefined);
      if (!info || info.mtimeMs >= staleBefore) continue;
      // Another process sweeping at the same time may have taken it first.
      try {
        if (kind === 'run' || !info.isDirectory()) await removeAsUser(path, user);
        else {
          // A checkout is the user's copy (`tree`) in a dir of driftgate's, which the user cannot list:
          // the copy is emptied by the user, then driftgate removes the emptied dirs. Never walked as root.
          for (const copy of await readdir(path)) await removeAsUser(join(path, copy), user);
          await rmdir(path);
        }
        removed.push(path);
      } catch (err) {
        // What the user could not delete (a dir it made read-only) stays, and the others still go.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') failed.push({ path, error: String(err) });
      }
    }
  }
  return { removed, failed };
}

/**
 * Removes `dir`, a tree the run-as user wrote, in a dir of driftgate's. Not walked as root: a process the
 * module left running could swap one of its dirs for a link while the walk is inside it, and root would
 * then delete what the link points to. The user's own `find -delete` (which never follows links) deletes
 * only what the user may; driftgate then removes the emptied dir itself, which the user cannot swap.
 */
export async function removeAsUser(dir: string, user: { uid: number; gid: number }): Promise<void> {
  const found = await lstat(dir).catch(() => undefined);
  if (!found) return;
  if (found.isDirectory())
    await execa('find', [dir, '-mindepth', '1', '-delete'], {
      uid: user.uid,
      gid: user.gid,
      reject: false,
      extendEnv: false,
      env: { PATH: '/usr/bin:/bin' },
    });
  await (found.isDirectory() ? rmdir(dir) : rm(dir, { force: true }));
}
