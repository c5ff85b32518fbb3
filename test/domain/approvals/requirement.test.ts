import { describe, expect, it } from 'vitest';
import { ApproversConfig } from '../../../src/config/schema.js';
import { authorSlackId, requirementFor } from '../../../src/domain/approvals/requirement.js';

const approvers = ApproversConfig.parse({
  groups: {
    'sre-leads': { users: ['U001', 'U002'] },
    platform: { usergroups: ['@platform'] },
    devs: { users: ['U009'] },
  },
  rules: [
    { stacks: 'prod/*', count: 2, from: ['sre-leads'] },
    { environments: ['staging'], from: ['platform', 'sre-leads'] },
    { stacks: 'dev/**', environments: ['dev'], from: ['devs'] },
    { stacks: 'sandbox', from: ['devs'] },
  ],
  authors: { 'Octo-Cat': 'U007' },
});

describe('requirementFor', () => {
  it.each([
    { name: 'prod/database', environment: 'prod', want: { rule: 0, count: 2, groups: ['sre-leads'] } },
    { name: 'prod/app', environment: undefined, want: { rule: 0, count: 2, groups: ['sre-leads'] } },
    { name: 'eu/app', environment: 'staging', want: { rule: 1, count: 1, groups: ['platform', 'sre-leads'] } },
    // An environment rule does not match a stack without an environment.
    { name: 'eu/app', environment: undefined, want: undefined },
    // Both criteria must match.
    { name: 'dev/a/b', environment: 'dev', want: { rule: 2, count: 1, groups: ['devs'] } },
    { name: 'dev/a/b', environment: 'test', want: undefined },
    { name: 'sandbox', environment: undefined, want: { rule: 3, count: 1, groups: ['devs'] } },
    // The first match wins, even when a later rule would match too.
    { name: 'prod/x', environment: 'staging', want: { rule: 0, count: 2, groups: ['sre-leads'] } },
    // `prod/*` is one segment deep.
    { name: 'prod/a/b', environment: 'prod', want: undefined },
    { name: 'other', environment: 'prod', want: undefined },
  ])('$name ($environment)', ({ name, environment, want }) => {
    const got = requirementFor({ name, environment }, approvers);
    expect(got && { rule: got.rule, ...got.requirement }).toEqual(want);
  });

  it('matches nothing without an approvers section or without rules', () => {
    expect(requirementFor({ name: 'prod/db' }, undefined)).toBeUndefined();
    expect(
      requirementFor({ name: 'prod/db' }, ApproversConfig.parse({ groups: { a: { users: ['U001'] } } })),
    ).toBeUndefined();
  });

  it('treats a rule without criteria as matching every stack', () => {
    const all = ApproversConfig.parse({ groups: { a: { users: ['U001'] } }, rules: [{ from: ['a'] }] });
    expect(requirementFor({ name: 'anything/at/all' }, all)).toEqual({
      rule: 0,
      requirement: { count: 1, groups: ['a'] },
    });
  });
});

describe('authorSlackId', () => {
  it.each([
    { login: 'Octo-Cat', want: 'U007' },
    { login: 'octo-cat', want: 'U007' },
    { login: 'someone', want: undefined },
    { login: undefined, want: undefined },
  ])('$login -> $want', ({ login, want }) => {
    expect(authorSlackId(approvers, login)).toBe(want);
  });
});
