import { readFileSync } from 'node:fs';

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
