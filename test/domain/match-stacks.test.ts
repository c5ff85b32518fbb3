import { describe, expect, it } from 'vitest';
import { matchStacks, stackPrefixes } from '../../src/domain/match-stacks.js';

const NAMES = ['dev/app', 'dev/database', 'prod/app', 'prod/database', 'staging/app', 'staging/database'];

describe('matchStacks', () => {
  it.each([
    ['stage/*', ['staging/*']],
    ['prd/*', ['prod/*']],
    ['*/dtabase', ['*/database']],
    ['qa/*', []],
    ['*/cache', []],
  ])('%s matches nothing; suggests %j and lists the prefixes', (pattern, suggestions) => {
    expect(matchStacks(NAMES, [pattern])).toEqual({
      ok: false,
      pattern,
      glob: true,
      suggestions,
      prefixes: ['dev/', 'prod/', 'staging/'],
    });
  });

  it('suggests close names for a name, without prefixes', () => {
    expect(matchStacks(NAMES, ['prod/db'])).toMatchObject({ ok: false, glob: false, prefixes: [] });
  });

  it('lists flat names as they are', () => {
    expect(stackPrefixes(['network', 'prod/app', 'database'])).toEqual(['database', 'network', 'prod/']);
  });
});
