import { describe, expect, it } from 'vitest';
import { stackMatcher } from '../../src/domain/stack-glob.js';

describe('stackMatcher', () => {
  it.each([
    // A lone star is every stack, however deep: `stacks: "*"` in a rule means all of them.
    ['*', 'prod/network', true],
    ['*', 'sandbox', true],
    ['prod/*', 'prod/network', true],
    ['prod/*', 'prod/eu/network', false],
    ['prod/**', 'prod/eu/network', true],
    ['*/database', 'staging/database', true],
    ['*/database', 'staging/app', false],
    ['sandbox', 'sandbox', true],
    ['sandbox', 'sandbox2', false],
    // An exact name that looks like a glob still matches itself.
    ['team[1]', 'team[1]', true],
  ])('%s ~ %s -> %s', (pattern, name, want) => {
    expect(stackMatcher(pattern)(name)).toBe(want);
  });
});
