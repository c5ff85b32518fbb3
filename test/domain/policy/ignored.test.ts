import { describe, expect, it } from 'vitest';
import { emptyEvaluation } from '../../../src/domain/policy/evaluate.js';
import { everythingIgnored } from '../../../src/domain/policy/ignored.js';

const change = (address: string) => ({ address }) as never;
const ignoring = (...addresses: string[]) => ({
  ...emptyEvaluation(),
  ignored: addresses.map((address) => ({ address, rule: 'asg-desired' })),
});

describe('everythingIgnored', () => {
  it.each([
    ['every change and drift ignored', [change('a')], [change('a')], ignoring('a'), true],
    ['one change not ignored', [change('a'), change('b')], [], ignoring('a'), false],
    ['drift not ignored', [], [change('c')], ignoring('a'), false],
    ['no policy', [change('a')], [], undefined, false],
    ['nothing ignored', [change('a')], [], ignoring(), false],
    ['no changes at all', [], [], ignoring('a'), false],
  ])('%s -> %s', (_name, changes, drift, policy, want) => {
    expect(everythingIgnored({ changes, drift }, policy)).toBe(want);
  });
});
