import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/**
 * CPU seconds (user + system) of this process's children that have exited and been waited for, terraform
 * and its plugins included: /proc/self/stat fields cutime and cstime. Linux only.
 */
export function childCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are plain numbers.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cutime = Number(fields[13]);
  const cstime = Number(fields[14]);
  return (cutime + cstime) / TICKS_PER_SECOND;
}

/** Wall and child CPU seconds of `fn`: the CPU of every child process it started and waited for. */
export async function timed(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const cpu0 = childCpuSeconds();
  const t0 = performance.now();
  await fn();
  return { wall: (performance.now() - t0) / 1000, cpu: childCpuSeconds() - cpu0 };
}

/**
 * The parent of a live process and its CPU ticks from /proc/<pid>/stat: `ticks` is utime + stime +
 * cutime + cstime (its waited-for children included), `ownTicks` utime + stime; undefined when gone.
 */
function statOf(pid: number): { ppid: number; ticks: number; ownTicks: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const sum = (at: number[]) => at.reduce((total, i) => total + Number(fields[i]), 0);
  return { ppid: Number(fields[1]), ticks: sum([11, 12, 13, 14]), ownTicks: sum([11, 12]) };
}

/**
 * CPU seconds a live process has spent itself so far (user + system), its children's left out: a node
 * process's own work, without the terraform it runs. Linux only; 0 when the process is gone.
 */
export function ownCpuSeconds(pid: number): number {
  return (statOf(pid)?.ownTicks ?? 0) / TICKS_PER_SECOND;
}

/**
 * CPU seconds of a live process tree so far: every live descendant's own time and that of the children
 * each has waited for (terraform and its providers, Postgres backends that ended). Linux only; the delta
 * of two readings is the tree's CPU in between.
 */
export function treeCpuSeconds(root: number): number {
  const parents = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = statOf(pid);
    if (!stat) continue;
    ticks.set(pid, stat.ticks);
    parents.set(stat.ppid, [...(parents.get(stat.ppid) ?? []), pid]);
  }
  let total = 0;
  const todo = [root];
  while (todo.length) {
    const pid = todo.pop()!;
    total += ticks.get(pid) ?? 0;
    todo.push(...(parents.get(pid) ?? []));
  }
  return total / TICKS_PER_SECOND;
}
