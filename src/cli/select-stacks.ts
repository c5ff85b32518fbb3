import picomatch from 'picomatch';
import type { StackConfig } from '../config/schema.js';
import { StackNotFoundError } from '../domain/errors.js';
import { suggest } from '../domain/suggest.js';

/**
 * Stacks named on the command line: exact names or globs (`prod/*`, `*\/database`). A name or glob that
 * matches nothing is an error with the closest names, so a typo never silently checks nothing.
 */
export function selectStacks(all: StackConfig[], patterns: string[]): StackConfig[] {
  const names = all.map((s) => s.name);
  const chosen = new Set<string>();
  for (const pattern of patterns) {
    const isMatch = picomatch(pattern);
    const hits = names.filter((n) => n === pattern || isMatch(n));
    if (hits.length === 0) throw new StackNotFoundError(pattern, suggest(pattern, names));
    for (const h of hits) chosen.add(h);
  }
  return all.filter((s) => chosen.has(s.name));
}
