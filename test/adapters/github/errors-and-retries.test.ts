import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitHubError } from '../../../src/adapters/github/client.js';
import type { GitHubRepository } from '../../../src/ports/github.js';
import { closedPort } from '../../helpers/ports.js';
import { makeGitHubFixture, rejection as failure, type GitHubFixture } from './github-fixture.js';

const TOKEN = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';

let f: GitHubFixture;
beforeEach(async () => {
  f = await makeGitHubFixture({ tokens: [TOKEN] });
});
afterEach(() => f.cleanup());

const commit = (repo: GitHubRepository = f.repo, client = f.client()) =>
  client.commitToBranch(repo, {
    branch: 'driftgate/x',
    parentSha: f.base,
    message: 'm',
    files: [{ path: 'a.tf', content: '1\n' }],
  });
const statuses = () => f.emulator.calls().map((c) => c.status);

/** Nothing the client says, thrown or logged, holds the token. */
function expectNoSecret(err?: Error) {
  const said = [err?.message ?? '', err?.stack ?? '', ...f.logs.map((l) => JSON.stringify(l))].join('\n');
  expect(said).not.toContain(TOKEN);
  expect(said).not.toContain(TOKEN.slice(4, 20));
}

describe('GitHub client retries', () => {
  it('retries a 502 and succeeds', async () => {
    f.emulator.failNext(1, 502);
    await commit();
    expect(statuses().slice(0, 2)).toEqual([502, 200]);
    expect(await f.git('rev-parse', 'driftgate/x')).toMatch(/^[0-9a-f]{40}$/);
  });

  it('gives up after 3 retries of a 5xx: a retriable GitHubError with the status', async () => {
    f.emulator.failNext(10, 503);
    const err = await failure(commit());
    expect(err).toBeInstanceOf(GitHubError);
    expect(err).toMatchObject({
      status: 503,
      retriable: true,
      code: 'EXTERNAL_SERVICE',
      operation: `read commit ${f.base.slice(0, 7)} (parent of driftgate/x) in acme/infrastructure`,
    });
    expect(err.message).toContain('GitHub answered HTTP 503 (Server Error), still after retrying');
    expect(statuses()).toEqual([503, 503, 503, 503]);
  });

  it('waits out a secondary rate limit for its Retry-After, logs the wait, and retries', async () => {
    f.emulator.failNext(1, 403, { secondaryRateLimit: true, retryAfter: 4 });
    const started = Date.now();
    await commit();
    expect(Date.now() - started).toBeGreaterThanOrEqual(20); // 4 "seconds" of 5 ms
    expect(statuses().slice(0, 2)).toEqual([403, 200]);
    expect(f.logs).toEqual([
      {
        obj: expect.objectContaining({ waitMs: 20, attempt: 1, method: 'GET' }),
        msg: 'GitHub secondary rate limit: retrying after 20 ms',
      },
    ]);
    expectNoSecret();
  });

  it('retries a primary rate limit (429, remaining 0) after the reset', async () => {
    f.emulator.failNext(1, 429, { primaryRateLimit: true, retryAfter: 1 });
    await commit();
    expect(statuses().slice(0, 2)).toEqual([429, 200]);
    expect(f.logs[0]!.msg).toMatch(/^GitHub primary rate limit: retrying after \d+ ms$/);
  });

  it('stops after 2 rate-limit retries: a retriable GitHubError saying so', async () => {
    f.emulator.failNext(5, 403, { secondaryRateLimit: true, retryAfter: 1 });
    const err = await failure(commit());
    expect(statuses()).toEqual([403, 403, 403]);
    expect(err).toMatchObject({ status: 403, retriable: true });
    expect(err.message).toContain('rate limited by GitHub (403 You have exceeded a secondary rate limit');
    expect(f.logs).toHaveLength(2);
  });
});

describe('GitHub client errors name the cause, never the token', () => {
  it('401: the token was refused, naming GITHUB_TOKEN; not retried', async () => {
    const wrong = 'ghp_wrongwrongwrongwrongwrongwrongwrong1';
    const err = await failure(commit(f.repo, f.client({ auth: { type: 'token', token: wrong } })));
    expect(err).toMatchObject({ status: 401, retriable: false });
    expect(err.message).toBe(
      `github: read commit ${f.base.slice(0, 7)} (parent of driftgate/x) in acme/infrastructure failed: GitHub refused GITHUB_TOKEN (401 Bad credentials): it is wrong, expired or revoked`,
    );
    expect(err.message).not.toContain(wrong);
    expect(f.emulator.calls().map((c) => [c.status, c.auth])).toEqual([[401, 'invalid']]);
  });

  it('404: the repository is not found or not visible, with owner/name and the API URL', async () => {
    const err = await failure(commit({ owner: 'acme', name: 'secret-repo' }));
    expect(err).toMatchObject({ status: 404, retriable: false });
    expect(err.message).toContain(
      `repository acme/secret-repo not found at ${f.emulator.apiUrl}, or not visible to GITHUB_TOKEN`,
    );
    expectNoSecret(err);
  });

  it('403 without a rate limit: missing permissions, saying which a token needs', async () => {
    f.emulator.failNext(1, 403, { body: { message: 'Resource not accessible by personal access token' } });
    const err = await failure(commit());
    expect(err).toMatchObject({ status: 403, retriable: false });
    expect(err.message).toContain(
      'the credentials lack permission on acme/infrastructure (403 Resource not accessible by personal access token)',
    );
    expect(err.message).toContain('contents:write and pull_requests:write');
  });

  it('masks a token GitHub (or a proxy) echoes back', async () => {
    f.emulator.failNext(1, 422, {
      body: { message: `token ${TOKEN} and ghs_abcdefghijklmnopqrstuvwxyz0123456789 refused` },
    });
    const err = await failure(commit());
    expect(err.message).toContain('GitHub refused it (422): token *** and *** refused');
    expectNoSecret(err);
  });

  it('connection refused: GitHub API at <url> unreachable, retriable, no status', async () => {
    const apiUrl = `http://127.0.0.1:${await closedPort()}`;
    const err = await failure(commit(f.repo, f.client({ apiUrl })));
    expect(err).toMatchObject({ status: undefined, retriable: true });
    expect(err.message).toMatch(new RegExp(`failed: GitHub API at ${apiUrl} unreachable: .*ECONNREFUSED`));
    expectNoSecret(err);
  });

  it('serves GitHub Enterprise Server style under /api/v3', async () => {
    const ghes = await makeGitHubFixture({ tokens: [TOKEN], basePath: '/api/v3', webUrl: 'https://ghe.example.com' });
    try {
      expect(ghes.emulator.apiUrl).toMatch(/\/api\/v3$/);
      await ghes.client().commitToBranch(ghes.repo, {
        branch: 'b',
        parentSha: ghes.base,
        message: 'm',
        files: [{ path: 'x', content: 'x' }],
      });
      const pr = await ghes
        .client()
        .openPullRequest(ghes.repo, { head: 'b', base: 'main', title: 't', body: '', labels: [] });
      expect(pr.url).toBe('https://ghe.example.com/acme/infrastructure/pull/1');
    } finally {
      await ghes.cleanup();
    }
  });
});
