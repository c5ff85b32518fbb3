/**
 * Comparing two builds measured in turn, run by run (or round by round): each pair ran under about the
 * same load, so "slower" needs the new build to lose in more pairs than chance explains (a one-sided sign
 * test), not one bad run. The machine is shared: a difference of medians alone says little.
 */

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** P(at least `k` of `n` fair coin flips come up heads): the sign test's one-sided p-value. */
export function signTest(k: number, n: number): number {
  let choose = 1;
  let tail = 0;
  for (let i = 0; i <= n; i++) {
    if (i >= k) tail += choose;
    choose = (choose * (n - i)) / (i + 1);
  }
  return tail / 2 ** n;
}

export const SIGNIFICANCE = 0.05;

export interface Paired {
  /** now/before of each pair, in the order they ran. */
  ratios: number[];
  medianRatio: number;
  /** Pairs in which now took more than before (a tie is no loss). */
  lost: number;
  p: number;
  /** now lost in more pairs than chance gives 5% of the time. */
  slower: boolean;
}

export function paired(now: number[], before: number[]): Paired {
  const ratios = now.map((n, i) => n / before[i]!);
  const lost = ratios.filter((r) => r > 1).length;
  const p = signTest(lost, ratios.length);
  return { ratios, medianRatio: median(ratios), lost, p, slower: p < SIGNIFICANCE };
}

/** The verdict a paired comparison allows, in words. */
export function pairedVerdict(c: Paired): string {
  if (c.slower) return 'SLOWER';
  return c.medianRatio <= 1 ? 'no slower' : 'no slower within noise';
}
