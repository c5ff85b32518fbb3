import { describe, expect, it } from 'vitest';
import type { Stack } from '../../../src/domain/stack.js';
import { branchMoved, stacksOnBranch } from '../../../src/http/github-webhook/branch-moved.js';

const repository = { full_name: 'acme/infra' };
const pr = (action: string, merged: boolean | null) => ({
  action,
  pull_request: { merged, base: { ref: 'main' } },
  repository,
});

describe('what a GitHub delivery means for driftgate', () => {
  it.each([
    ['push', { ref: 'refs/heads/main', repository }, { moved: { repository: 'acme/infra', branch: 'main' } }],
    [
      'push',
      { ref: 'refs/heads/release/1.x', repository },
      { moved: { repository: 'acme/infra', branch: 'release/1.x' } },
    ],
    ['push', { ref: 'refs/tags/v1', repository }, { ignored: 'push to refs/tags/v1, not a branch' }],
    ['push', { ref: 'refs/heads/old', deleted: true, repository }, { ignored: 'branch old was deleted' }],
    ['push', { repository: {} }, { ignored: 'push payload not understood: ref, repository.full_name' }],
    ['pull_request', pr('closed', true), { moved: { repository: 'acme/infra', branch: 'main' } }],
    ['pull_request', pr('closed', false), { ignored: 'pull request closed without merging' }],
    ['pull_request', pr('opened', null), { ignored: 'pull request opened' }],
    [
      'pull_request',
      { action: 'closed' },
      { ignored: 'pull_request payload not understood: pull_request, repository' },
    ],
    ['issues', { action: 'opened' }, { ignored: 'event issues is not one driftgate acts on' }],
  ])('%s %j', (event, payload, expected) => {
    expect(branchMoved(event, payload)).toEqual(expected);
  });

  it('matches stacks by repository (case-insensitively) and branch', () => {
    const stack = (name: string, git?: Partial<NonNullable<Stack['git']>>) =>
      ({ name, ...(git ? { git: { url: 'u', branch: 'main', path: '.', varFiles: [], ...git } } : {}) }) as Stack;
    const stacks = [
      stack('a', { repository: 'Acme/Infra' }),
      stack('b', { repository: 'acme/infra', branch: 'dev' }),
      stack('c', { repository: 'acme/other' }),
      stack('d', {}),
      stack('local'),
    ];
    expect(stacksOnBranch(stacks, { repository: 'ACME/infra', branch: 'main' }).map((s) => s.name)).toEqual(['a']);
  });
});
