import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const projectRoot = resolve(import.meta.dirname, '../../..');

/** The race worker (our real store code) as compiled by `npm run build`, which `npm test` runs first. */
export const RACE_WORKER = join(projectRoot, 'dist/test/adapters/store/fixtures/race-worker.js');
export const HAS_RACE_WORKER = existsSync(RACE_WORKER);

/** Starts `count` workers, releases them together once all are ready, returns each one's winning ids. */
export async function raceWorkers(
  workerFile: string,
  dbPath: string,
  ids: string[],
  count: number,
): Promise<string[][]> {
  const children: ChildProcess[] = [];
  const lines = (child: ChildProcess) => createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  try {
    const readers = [];
    for (let i = 0; i < count; i++) {
      const child = spawn(process.execPath, [workerFile, dbPath, JSON.stringify(ids)], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      children.push(child);
      readers.push(lines(child));
    }
    for (const reader of readers) {
      const first = await reader.next();
      if (first.value !== 'ready') throw new Error(`race worker did not start: ${String(first.value)}`);
    }
    for (const child of children) child.stdin!.write('go\n');
    return await Promise.all(
      readers.map(async (reader) => {
        const result = await reader.next();
        return JSON.parse(String(result.value)) as string[];
      }),
    );
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
  }
}
