import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach } from 'vitest';

/** Kills a child with SIGKILL (no cleanup of its own, as a crash) and waits until it is gone. */
export async function kill9(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

/**
 * Real processes that run until killed, e.g. owners of store locks and runs; those still running after
 * a test are killed after it.
 */
export function useLiveProcesses(): { start(): ChildProcess & { pid: number } } {
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) await kill9(child);
  });
  return {
    start() {
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      children.push(child);
      return child as ChildProcess & { pid: number };
    },
  };
}
