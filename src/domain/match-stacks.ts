import picomatch from 'picomatch';
import { stackMatcher } from './stack-glob.js';
import { suggest } from './suggest.js';

export type StackMatch =
  | { ok: true; names: string[] }
  | {
      ok: false;
      pattern: string;
      /** Closest names for a name; for a glob, the same glob with a misspelt segment corrected. */
      suggestions: string[];
      /** A glob (`stage/*`) rather than a name. */
      glob: boolean;
      /** For a glob: the first path segments the stacks have (`dev/`, `prod/`), or the names of flat stacks. */
      prefixes: string[];
    };

/**
 * Stack names chosen by exact names or globs (`prod/*`, `*\/database`), in the order of `names`. A pattern
 * that matches nothing fails with the closest names, so a typo never silently selects nothing.
 */
export function matchStacks(names: readonly string[], patterns: readonly string[]): StackMatch {
  const chosen = new Set<string>();
  for (const pattern of patterns) {
    const hits = names.filter(stackMatcher(pattern));
    if (hits.length === 0) {
      const glob = picomatch.scan(pattern).isGlob;
      return glob
        ? { ok: false, pattern, glob, suggestions: correctedGlobs(pattern, names), prefixes: stackPrefixes(names) }
        : { ok: false, pattern, glob, suggestions: suggest(pattern, [...names]), prefixes: [] };
    }
    for (const h of hits) chosen.add(h);
  }
  return { ok: true, names: names.filter((n) => chosen.has(n)) };
}

/** The first segments of the stack names (`prod/`), or the names themselves when none has a `/`. */
export function stackPrefixes(names: readonly string[]): string[] {
  const prefixes = new Set(names.map((n) => (n.includes('/') ? `${n.slice(0, n.indexOf('/'))}/` : n)));
  return [...prefixes].sort();
}

/**
 * `stage/*` -> `staging/*`: each literal segment of the glob that no stack has at that position is replaced
 * by the closest segment that one has; kept only when the corrected glob matches a stack.
 */
function correctedGlobs(pattern: string, names: readonly string[]): string[] {
  const segments = pattern.split('/');
  const corrected = segments.map((segment, i) => {
    if (picomatch.scan(segment).isGlob) return segment;
    const seen = new Set(names.map((n) => n.split('/')[i]).filter((s): s is string => s !== undefined));
    if (seen.has(segment)) return segment;
    return suggest(segment, [...seen], 1)[0] ?? longestSharedStart(segment, [...seen]) ?? segment;
  });
  const glob = corrected.join('/');
  return glob !== pattern && names.some(stackMatcher(glob)) ? [glob] : [];
}

/** `stage` -> `staging`: the candidate sharing the longest start with `segment`, at least half of it. */
function longestSharedStart(segment: string, candidates: string[]): string | undefined {
  let best: { candidate: string; shared: number } | undefined;
  for (const candidate of candidates) {
    let shared = 0;
    while (shared < segment.length && segment[shared] === candidate[shared]) shared++;
    if (shared >= Math.max(3, Math.ceil(segment.length / 2)) && shared > (best?.shared ?? 0))
      best = { candidate, shared };
  }
  return best?.candidate;
}
