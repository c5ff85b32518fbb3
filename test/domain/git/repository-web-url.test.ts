import { describe, expect, it } from 'vitest';
import { commitUrl, pullRequestUrl, repositoryWebUrl } from '../../../src/domain/git/repository-web-url.js';

const CASES: [string, string | undefined][] = [
  ['https://github.com/acme/infra.git', 'https://github.com/acme/infra'],
  ['https://github.com/acme/infra', 'https://github.com/acme/infra'],
  ['https://x-access-token@github.com/acme/infra.git/', 'https://github.com/acme/infra'],
  ['https://GitHub.com/Acme/Infra.git', 'https://github.com/Acme/Infra'],
  ['ssh://git@github.com/acme/infra.git', 'https://github.com/acme/infra'],
  ['ssh://git@github.com:22/acme/infra.git', 'https://github.com/acme/infra'],
  ['git@github.com:acme/infra.git', 'https://github.com/acme/infra'],
  ['github.com:acme/infra', 'https://github.com/acme/infra'],
  ['https://github.example.com/platform/infra.git', 'https://github.example.com/platform/infra'],
  ['https://github.example.com:8443/platform/infra.git', 'https://github.example.com:8443/platform/infra'],
  ['git@github.corp.internal:platform/infra.git', 'https://github.corp.internal/platform/infra'],
  ['https://git.github-corp.net/platform/infra', 'https://git.github-corp.net/platform/infra'],
  ['https://gitlab.com/acme/infra.git', undefined],
  ['git@gitlab.com:acme/infra.git', undefined],
  ['https://mygithub.com/acme/infra', undefined],
  ['file:///tmp/origin.git', undefined],
  ['/tmp/origin.git', undefined],
  ['https://github.com/acme', undefined],
  ['https://github.com/acme/infra/tree/main', undefined],
  ['https://github.com/acme/../infra', undefined],
  ['https://github.com/acme/in%20fra', undefined],
  ['not a url', undefined],
];

describe('repositoryWebUrl', () => {
  it.each(CASES)('%s -> %s', (url, web) => {
    expect(repositoryWebUrl(url)).toBe(web);
  });

  it('builds PR and commit links', () => {
    expect(pullRequestUrl('https://github.com/o/r', 34)).toBe('https://github.com/o/r/pull/34');
    expect(commitUrl('https://github.com/o/r', 'abc')).toBe('https://github.com/o/r/commit/abc');
  });
});
