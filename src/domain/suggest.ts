/**
 * "Did you mean" suggestions for stack names, config keys and enum values. Pure.
 *
 * Candidates are ranked in tiers before edit distance, because people abbreviate stack names far more
 * often than they misspell them: `prod/net` should find `prod/networking` although 8 edits apart.
 */

enum Tier {
  Exact = 0,
  /** Each typed `/`-segment starts the candidate's segment at the same place, or the tail matches. */
  Segments = 1,
  Prefix = 2,
  Substring = 3,
  Typo = 4,
}

export function suggest(input: string, candidates: string[], max = 3): string[] {
  const needle = input.trim().toLowerCase();
  if (!needle || max <= 0) return [];
  const limit = Math.max(2, Math.ceil(needle.length * 0.4));
  const ranked: { candidate: string; tier: Tier; distance: number }[] = [];
  for (const candidate of new Set(candidates)) {
    const hay = candidate.toLowerCase();
    const distance = damerauLevenshtein(needle, hay);
    const tier = tierOf(needle, hay, distance, limit);
    if (tier !== undefined) ranked.push({ candidate, tier, distance });
  }
  ranked.sort((a, b) => a.tier - b.tier || a.distance - b.distance || a.candidate.localeCompare(b.candidate));
  return ranked.slice(0, max).map((r) => r.candidate);
}

function tierOf(needle: string, hay: string, distance: number, limit: number): Tier | undefined {
  if (needle === hay) return Tier.Exact;
  if (segmentsMatch(needle, hay)) return Tier.Segments;
  if (hay.startsWith(needle)) return Tier.Prefix;
  if (needle.length >= 3 && hay.includes(needle)) return Tier.Substring;
  if (distance <= limit && distance < Math.max(needle.length, hay.length)) return Tier.Typo;
  return undefined;
}

/** `prod/net` ~ `prod/networking`, `*\/data` ~ `dev/database`, `networking` ~ `prod/networking`. */
function segmentsMatch(needle: string, hay: string): boolean {
  const typed = needle.split('/');
  const known = hay.split('/');
  if (typed.length === known.length && typed.length > 1) {
    return typed.every((seg, i) => seg === '*' || known[i]!.startsWith(seg));
  }
  // A bare trailing part: the leaf name of a nested stack.
  return typed.length < known.length && known.slice(known.length - typed.length).join('/') === needle;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function damerauLevenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (!a.length) return b.length;
  if (!b.length) return a.length;
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[(i - 1) * cols + j]! + 1, d[i * cols + j - 1]! + 1, d[(i - 1) * cols + j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[(i - 2) * cols + j - 2]! + 1);
      }
      d[i * cols + j] = best;
    }
  }
  return d[rows * cols - 1]!;
}
