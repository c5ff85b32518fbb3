import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const EXAMPLES = join(import.meta.dirname, '../../examples');

/** The examples' stacks (`environments/<env>/<layer>/*.tf`), path -> content, to commit to a test repository. */
export async function exampleStackFiles(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(join(EXAMPLES, 'environments'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[path.slice(EXAMPLES.length + 1)] = await readFile(path, 'utf8');
  }
  return files;
}
