import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { ProcessOwner, StackLock } from '../../../domain/run/model.js';
import type { RecoverOptions } from '../../../ports/store.js';

/** Who this connection works for, and whether the process behind another owner still runs. */
export interface StoreOwnership {
  owner: ProcessOwner;
  ownerState: (owner: ProcessOwner) => OwnerState;
}

/** Reads a /proc file; throws when it cannot (no such process, or no procfs). */
export type ProcReader = (path: string) => string;

const readProc: ProcReader = (path) => readFileSync(path, 'utf8');

/**
 * `alive`: another process on this host that still runs. `gone`: it exited, its pid now belongs to a later
 * process, or it is this very process (whose heartbeat is the only one that counts for its own locks and
 * runs). `unknown`: another host, which only its lock's expiry can speak for.
 */
export type OwnerState = 'alive' | 'gone' | 'unknown';

/**
 * When a process started: the boot it belongs to and field 22 of /proc/<pid>/stat (clock ticks since boot),
 * so that neither a reused pid nor a reboot passes for the same process. Undefined when unreadable or a zombie.
 */
function startOf(pid: number, read: ProcReader): string | undefined {
  let stat: string;
  try {
    stat = read(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
  let boot = '';
  try {
    boot = read('/proc/sys/kernel/random/boot_id').trim();
  } catch {
    // no boot id: the start time alone
  }
  return `${boot}:${fields[22 - 3] ?? ''}`;
}

export function processOwner(pid: number = process.pid, read: ProcReader = readProc): ProcessOwner {
  return { host: hostname(), pid, start: startOf(pid, read) ?? '' };
}

export function sameProcess(a: ProcessOwner, b: ProcessOwner): boolean {
  return a.host === b.host && a.pid === b.pid && a.start === b.start;
}

/**
 * Whether a run in flight was left over by a process that ended, for both stores' recovery. `held`: the
 * run still holds its stack's lock (asked only when needed). With `ownRunsLive`, this process's own runs
 * are live while they hold their lock: one whose end could not be recorded (the store was out of reach)
 * released it and is left over. Another host's run only its lock's expiry can speak for.
 */
export function leftOver(
  owner: ProcessOwner | undefined,
  held: () => boolean,
  self: { owner: ProcessOwner; ownerState: (owner: ProcessOwner) => OwnerState },
  options: RecoverOptions,
  /** How long ago the run was created. */
  ageMs: number,
): boolean {
  const own = owner !== undefined && sameProcess(owner, self.owner);
  // This process's own run in the leader's sweep: one it still drives holds its lock until its end is
  // recorded; one whose end could not be recorded (the store was out of reach) lost it at its TTL.
  if (own && options.othersOlderThanMs !== undefined) return ageMs >= options.othersOlderThanMs && !held();
  if (own && options.ownRunsLive) return !held();
  const state = owner ? self.ownerState(owner) : 'gone';
  if (state !== 'unknown') return state === 'gone';
  if (options.othersOlderThanMs !== undefined && ageMs < options.othersOlderThanMs) return false;
  return !held();
}

/**
 * What a process holding something only in memory (an alert in its digest window) records, and how another
 * process tells it has ended: known gone on this host; never this very process, whose memory still holds it.
 */
export function inMemoryHolder(self: ProcessOwner = processOwner()): {
  self: ProcessOwner;
  gone(owner: ProcessOwner): boolean;
} {
  return { self, gone: (owner) => !sameProcess(owner, self) && ownerState(owner, self) === 'gone' };
}

export function ownerState(
  owner: ProcessOwner,
  self: ProcessOwner = processOwner(),
  read: ProcReader = readProc,
): OwnerState {
  if (owner.host !== self.host) return 'unknown';
  if (sameProcess(owner, self)) return 'gone';
  const start = startOf(owner.pid, read);
  if (start !== undefined) return start === owner.start ? 'alive' : 'gone';
  // No such process, unless this host has no readable /proc at all: then nothing says it is gone.
  return startOf(self.pid, read) === undefined ? 'alive' : 'gone';
}

/**
 * Whether a stack lock is still held by a live process other than this one (a check or apply of another
 * replica, or of a terminal's `driftgate check`): not stale, so never broken by an unlock. Another host's
 * process counts as live until its lock runs out, which it does `lockTtl` after its last renewal.
 */
export function heldByAnother(
  lock: Pick<StackLock, 'expiresAt' | 'owner'>,
  now: Date,
  self: ProcessOwner = processOwner(),
): boolean {
  if (lock.expiresAt.getTime() <= now.getTime()) return false;
  if (!lock.owner) return true;
  if (sameProcess(lock.owner, self)) return false;
  return ownerState(lock.owner, self) !== 'gone';
}
