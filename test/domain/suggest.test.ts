import { describe, expect, it } from 'vitest';
import { damerauLevenshtein, suggest } from '../../src/domain/suggest.js';

const STACKS = ['prod/networking', 'prod/database', 'dev/networking', 'dev/database', 'staging/app', 'sandbox'];

describe('suggest', () => {
  it.each<[string, string[], string[]]>([
    // Abbreviated segments rank first even though the edit distance is large.
    ['prod/net', STACKS, ['prod/networking']],
    ['prod/data', STACKS, ['prod/database']],
    ['p/net', STACKS, ['prod/networking']],
    ['*/database', STACKS, ['dev/database', 'prod/database']],
    // A leaf name offers every stack ending in it.
    ['networking', STACKS, ['dev/networking', 'prod/networking']],
    // Typos: substitutions, transpositions, missing letters.
    ['prod/netwroking', STACKS, ['prod/networking', 'dev/networking']],
    ['sandbx', STACKS, ['sandbox']],
    ['Sandbox', STACKS, ['sandbox']],
    ['stagign/app', STACKS, ['staging/app']],
    // Prefix and substring.
    ['sand', STACKS, ['sandbox']],
    ['aging', STACKS, ['staging/app']],
    // Config keys.
    ['shedule', ['schedule', 'vars', 'varFiles', 'env'], ['schedule']],
    ['varfile', ['schedule', 'vars', 'varFiles', 'env'], ['varFiles']],
    ['concurency', ['schedule', 'jitter', 'concurrency', 'mode'], ['concurrency']],
    // Nothing close.
    ['xyz', STACKS, []],
    ['zzzzzzzz', ['schedule', 'mode'], []],
    ['', STACKS, []],
    ['a', [], []],
  ])('%s', (input, candidates, expected) => {
    expect(suggest(input, candidates)).toEqual(expected);
  });

  it('returns at most max suggestions, best first, without duplicates', () => {
    expect(suggest('db', ['db1', 'db2', 'db3', 'db4', 'db1'], 2)).toEqual(['db1', 'db2']);
    expect(suggest('prod', STACKS, 10)).toEqual(['prod/database', 'prod/networking']);
    expect(suggest('prod/networking', STACKS, 1)).toEqual(['prod/networking']);
    expect(suggest('x', ['x'], 0)).toEqual([]);
  });
});

describe('damerauLevenshtein', () => {
  it.each([
    ['', '', 0],
    ['abc', '', 3],
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
    ['ab', 'ba', 1],
    ['shedule', 'schedule', 1],
    ['ca', 'abc', 3],
  ])('%s ~ %s = %i', (a, b, d) => {
    expect(damerauLevenshtein(a, b)).toBe(d);
    expect(damerauLevenshtein(b, a)).toBe(d);
  });
});
