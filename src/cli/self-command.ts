import { accessSync, constants, existsSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { environmentValue } from '../config/environment.js';
import { packageRoot } from './package-root.js';

/**
 * The shell command that runs this very driftgate where the user is: `driftgate` when that name on their
 * PATH is this install (npm install -g, npm link), else `node <path of this build's entry point>`.
 */
export function selfCommand(
  env: Record<string, string | undefined>,
  bin = join(packageRoot(), 'dist', 'src', 'bin', 'driftgate.js'),
): { command: string; onPath: boolean } {
  const self = existsSync(bin) ? realpathSync(bin) : bin;
  // The shell runs the first executable `driftgate` on the PATH: only if that is this one will it work.
  for (const dir of (environmentValue(env, 'PATH') ?? '').split(delimiter).filter(Boolean)) {
    const found = executableRealpath(join(dir, 'driftgate'));
    if (found !== undefined) return found === self ? { command: 'driftgate', onPath: true } : notOnPath(bin);
  }
  return notOnPath(bin);
}

function notOnPath(bin: string) {
  return { command: `node ${shellQuote(bin)}`, onPath: false };
}

function executableRealpath(path: string): string | undefined {
  try {
    accessSync(path, constants.X_OK);
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** A word the shell reads back unchanged. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
