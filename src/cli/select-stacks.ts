import type { Stack } from '../domain/stack.js';
import { NoStackMatchesError, StackNotFoundError } from '../domain/errors.js';
import { matchStacks } from '../domain/match-stacks.js';

/**
 * Stacks named on the command line (names or globs); a name that matches nothing is an error with the
 * closest names, a glob that matches nothing one with the prefixes the stacks have.
 */
export function selectStacks(all: Stack[], patterns: string[]): Stack[] {
  const match = matchStacks(
    all.map((s) => s.name),
    patterns,
  );
  if (!match.ok)
    throw match.glob
      ? new NoStackMatchesError(match.pattern, match.suggestions, match.prefixes)
      : new StackNotFoundError(match.pattern, match.suggestions);
  const chosen = new Set(match.names);
  return all.filter((s) => chosen.has(s.name));
}
