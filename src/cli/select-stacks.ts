import type { Stack } from '../domain/stack.js';
import { StackNotFoundError } from '../domain/errors.js';
import { matchStacks } from '../domain/match-stacks.js';

/** Stacks named on the command line (names or globs); one that matches nothing is an error with the closest names. */
export function selectStacks(all: Stack[], patterns: string[]): Stack[] {
  const match = matchStacks(
    all.map((s) => s.name),
    patterns,
  );
  if (!match.ok) throw new StackNotFoundError(match.pattern, match.suggestions);
  const chosen = new Set(match.names);
  return all.filter((s) => chosen.has(s.name));
}
