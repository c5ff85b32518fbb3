import { stackMatcher } from './stack-glob.js';
import { suggest } from './suggest.js';

export type StackMatch = { ok: true; names: string[] } | { ok: false; pattern: string; suggestions: string[] };

/**
 * Stack names chosen by exact names or globs (`prod/*`, `*\/database`), in the order of `names`. A pattern
 * that matches nothing fails with the closest names, so a typo never silently selects nothing.
 */
export function matchStacks(names: readonly string[], patterns: readonly string[]): StackMatch {
  const chosen = new Set<string>();
  for (const pattern of patterns) {
    const hits = names.filter(stackMatcher(pattern));
    if (hits.length === 0) return { ok: false, pattern, suggestions: suggest(pattern, [...names]) };
    for (const h of hits) chosen.add(h);
  }
  return { ok: true, names: names.filter((n) => chosen.has(n)) };
}
