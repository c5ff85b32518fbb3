import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory holding driftgate's package.json, found from this file whether run from src/ or dist/. */
export function packageRoot(from = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'examples'))) return dir;
  }
  throw new Error(`cannot find the driftgate package root above ${from}`);
}
