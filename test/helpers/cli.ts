import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { packageRoot } from '../../src/cli/package-root.js';

// From the package root: this file also runs compiled, from dist/test/helpers (the soak).
export const BIN = join(packageRoot(), 'dist/src/bin/driftgate.js');
export const HAS_BUILD = existsSync(BIN);
export const NO_BUILD_REASON = `${BIN} is missing: run \`npm run build\` (npm test does)`;

/** Runs the CLI in-process with captured streams. */
export async function runCli(argv: string[], options: { cwd: string; env: Record<string, string | undefined> }) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (c) => out.push(String(c)));
  stderr.on('data', (c) => err.push(String(c)));
  const code = await main(argv, { stdout, stderr, env: options.env, cwd: options.cwd, onShutdown: () => undefined });
  return { code, stdout: out.join(''), stderr: err.join('') };
}
