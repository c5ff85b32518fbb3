/**
 * A seeded pseudo-random source (mulberry32): the same seed makes the same choices, so a soak that found a
 * violation can be run again the same way (`--seed`). Timing still differs from run to run; the seed fixes
 * what the driver decides, not when the processes answer.
 */
export interface Random {
  readonly seed: number;
  /** In [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T | undefined;
  /** A key of `weights`, each chosen in proportion to its weight. */
  weighted<K extends string>(weights: Record<K, number>): K;
}

export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    seed,
    next,
    int,
    chance: (p) => next() < p,
    pick: (items) => (items.length === 0 ? undefined : items[int(0, items.length - 1)]),
    weighted(weights) {
      const entries = Object.entries(weights) as [keyof typeof weights, number][];
      let left = next() * entries.reduce((sum, [, w]) => sum + w, 0);
      for (const [key, weight] of entries) {
        left -= weight;
        if (left < 0) return key;
      }
      return entries[entries.length - 1]![0];
    },
  };
}
