import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeGitHubFixture, rejection, SEED, type GitHubFixture } from './github-fixture.js';

let f: GitHubFixture;
beforeEach(async () => {
  f = await makeGitHubFixture();
});
afterEach(() => f.cleanup());

describe('GitHubClient.commitToBranch against the emulator over a real repository', () => {
  it('creates the branch at a commit on the parent that changes exactly the given files, nested paths included', async () => {
    const client = f.client();
    const { sha } = await client.commitToBranch(f.repo, {
      branch: 'driftgate/prod-db',
      parentSha: f.base,
      message: 'Remediate drift in prod/db',
      files: [
        { path: 'stacks/db/main.tf', content: 'resource "terraform_data" "db" { input = 2 }\n' },
        { path: 'stacks/db/generated/imports.tf', content: '# imports\n' },
      ],
    });

    expect(await f.git('rev-parse', 'refs/heads/driftgate/prod-db')).toBe(sha);
    expect(await f.git('rev-parse', `${sha}^`)).toBe(f.base);
    expect((await f.git('diff', '--name-only', `${f.base}..driftgate/prod-db`)).split('\n')).toEqual([
      'stacks/db/generated/imports.tf',
      'stacks/db/main.tf',
    ]);
    expect(await f.git('show', `${sha}:stacks/db/main.tf`)).toBe('resource "terraform_data" "db" { input = 2 }');
    expect(await f.git('show', `${sha}:stacks/web/main.tf`)).toBe(SEED['stacks/web/main.tf'].trim());
    expect(await f.git('log', '-1', '--format=%s', sha)).toBe('Remediate drift in prod/db');
    expect(await f.git('rev-parse', 'refs/heads/main')).toBe(f.base);

    // The sequence the port promises: parent, blobs, one tree on the parent's tree, commit, ref.
    const calls = f.emulator
      .calls()
      .map((c) => `${c.method} ${c.path.replace(/^\/repos\/acme\/infrastructure/, '')} ${c.status}`);
    expect(calls).toEqual([
      `GET /git/commits/${f.base} 200`,
      'POST /git/blobs 201',
      'POST /git/blobs 201',
      'POST /git/trees 201',
      'POST /git/commits 201',
      'POST /git/refs 201',
    ]);
    const parentTree = await f.git('rev-parse', `${f.base}^{tree}`);
    expect(f.emulator.calls('POST').find((c) => c.path.endsWith('/git/trees'))!.body).toMatchObject({
      base_tree: parentTree,
    });
    expect(f.emulator.calls().every((c) => c.auth === 'token')).toBe(true);
  });

  it('a second commit force-moves the branch onto a new commit of the same parent', async () => {
    const client = f.client();
    const branch = 'driftgate/prod-db';
    const first = await client.commitToBranch(f.repo, {
      branch,
      parentSha: f.base,
      message: 'One',
      files: [{ path: 'a.tf', content: '1\n' }],
    });
    const newMain = await f.testRepo.commit({ 'README.md': '# moved on\n' }, 'Elsewhere');
    const second = await client.commitToBranch(f.repo, {
      branch,
      parentSha: newMain,
      message: 'Two',
      files: [{ path: 'b.tf', content: '2\n' }],
    });

    expect(second.sha).not.toBe(first.sha);
    expect(await f.git('rev-parse', `refs/heads/${branch}`)).toBe(second.sha);
    // Not a fast-forward: the old commit is not in the branch's history any more.
    expect((await f.git('rev-list', branch)).split('\n')).not.toContain(first.sha);
    expect(await f.git('diff', '--name-only', `${newMain}..${branch}`)).toBe('b.tf');
    const moves = f.emulator.calls().filter((c) => c.path.includes('/git/refs'));
    expect(moves.map((c) => [c.method, c.status])).toEqual([
      ['POST', 201],
      ['POST', 422],
      ['PATCH', 200],
    ]);
    expect(moves[2]!.body).toEqual({ sha: second.sha, force: true });
  });

  it('what it writes is real git: a file:// clone of the same repository checks the branch out', async () => {
    const { sha } = await f.client().commitToBranch(f.repo, {
      branch: 'driftgate/x',
      parentSha: f.base,
      message: 'Clone me',
      files: [{ path: 'deep/er/still/file.tf', content: 'é ✓ unicode\n' }],
    });
    const dir = await mkdtemp(join(tmpdir(), 'driftgate-gh-clone-'));
    try {
      const env = { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
      await execa('git', ['clone', '--quiet', '--branch', 'driftgate/x', f.testRepo.url, join(dir, 'c')], {
        env,
        extendEnv: false,
      });
      expect(await readFile(join(dir, 'c', 'deep/er/still/file.tf'), 'utf8')).toBe('é ✓ unicode\n');
      expect((await execa('git', ['rev-parse', 'HEAD'], { cwd: join(dir, 'c'), env, extendEnv: false })).stdout).toBe(
        sha,
      );
      expect(await f.git('fsck', '--no-dangling')).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('an unknown parent commit is a GitHubError that says the commit may not exist', async () => {
    const missing = 'f'.repeat(40);
    const err = await rejection(
      f.client().commitToBranch(f.repo, { branch: 'driftgate/x', parentSha: missing, message: 'm', files: [] }),
    );
    expect(err).toMatchObject({ name: 'GitHubError', code: 'EXTERNAL_SERVICE', status: 404, retriable: false });
    expect(err.message).toContain(`commit ${missing} does not exist there`);
    expect(err.message).toContain('read commit fffffff (parent of driftgate/x) in acme/infrastructure failed');
  });
});
