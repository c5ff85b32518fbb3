import { environmentValue } from '../config/environment.js';
import type { CliIo } from './io.js';

/** Colour on a terminal, unless NO_COLOR is set. */
export function useColor(io: Pick<CliIo, 'env' | 'stdout'>): boolean {
  return Boolean(io.stdout.isTTY) && !environmentValue(io.env, 'NO_COLOR');
}
