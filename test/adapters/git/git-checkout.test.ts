import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pullRequestNumber } from '../../../src/adapters/git/commit-info.js';
import { execGit, type GitExecRequest } from '../../../src/adapters/git/exec-git.js';
import { createGitCheckout } from '../../../src/adapters/git/git-checkout.js';
import { GitError } from '../../../src/domain/errors.js';
import { createGitSources } from '../../../src/adapters/git/git-sources.js';
import { makeTestRepo, type TestRepo } from './git-repo.js';

const TOKEN = 'ghp_SuperSecretToken0123456789abcdefXYZ';
const TOKEN_B64 = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');

let repo: TestRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

/** The real git, every request kept so the test can read each argv and env. */
function recordingExec() {
  const calls: GitExecRequest[] = [];
  return {
    calls,
    exec: async (r: GitExecRequest) => {
      calls.push(r);
      return execGit(r);
    },
  };
}

function lineLogger() {
  const lines: string[] = [];
  return { lines, logger: { debug: (obj: object, msg?: string) => void lines.push(JSON.stringify({ ...obj, msg })) } };
}

const baseEnv = () => ({ PATH: process.env.PATH, HOME: repo!.dir });

describe('GitCheckout on a real repository', () => {
  it('fetches the head, checks out exact commits, reuses one clone, and sees a commit pushed later', async () => {
    repo = await makeTestRepo();
    const a = await repo.commit({ 'stacks/app/main.tf': '# A\n' }, 'Add app (#7)');
    const { calls, exec } = recordingExec();
    const dir = join(repo.dir, 'data', 'git', 'clone');
    const git = createGitCheckout({ url: repo.url, branch: 'main', dir, env: baseEnv(), exec });

    const head = await git.fetchHead();
    expect(head).toMatchObject({
      sha: a,
      author: 'Ada Lovelace',
      authorEmail: 'ada@example.com',
      title: 'Add app (#7)',
      prNumber: 7,
    });
    expect(head.committedAt.toISOString()).toBe('2024-05-01T10:00:00.000Z');

    const b = await repo.commit({ 'stacks/app/main.tf': '# B\n' }, 'Change app');
    const next = await git.fetchHead();
    expect(next.sha).toBe(b);
    expect(next.prNumber).toBeUndefined();
    expect(calls.filter((c) => c.args.includes('init'))).toHaveLength(1);
    expect(calls.filter((c) => c.args.includes('fetch')).every((c) => c.args.includes('--depth=50'))).toBe(true);

    const atA = await git.checkout(a);
    const atB = await git.checkout(b);
    expect(await readFile(join(atA.dir, 'stacks/app/main.tf'), 'utf8')).toBe('# A\n');
    expect(await readFile(join(atB.dir, 'stacks/app/main.tf'), 'utf8')).toBe('# B\n');
    await atA.release();
    await atA.release();
    expect(existsSync(atA.dir)).toBe(false);
    expect(existsSync(atB.dir)).toBe(true);
    await atB.release();
    expect(await readdir(join(dir, 'worktrees'))).toEqual([]);
  });

  it('shares one fetch between concurrent callers', async () => {
    repo = await makeTestRepo();
    const a = await repo.commit({ 'main.tf': '' }, 'one');
    const { calls, exec } = recordingExec();
    const git = createGitCheckout({
      url: repo.url,
      branch: 'main',
      dir: join(repo.dir, 'clone'),
      env: baseEnv(),
      exec,
    });
    const heads = await Promise.all([git.fetchHead(), git.fetchHead(), git.fetchHead()]);
    expect(heads.map((h) => h.sha)).toEqual([a, a, a]);
    expect(calls.filter((c) => c.args.includes('fetch'))).toHaveLength(1);
  });

  it('reads the pull request number from merge and squash commit titles', async () => {
    repo = await makeTestRepo();
    const merge = await repo.commit({ 'a.tf': '' }, 'Merge pull request #12 from x/y');
    const squash = await repo.commit({ 'b.tf': '' }, 'Fix tags (#34)');
    const git = createGitCheckout({ url: repo.url, branch: 'main', dir: join(repo.dir, 'clone'), env: baseEnv() });
    await git.fetchHead();
    expect((await git.commit(merge)).prNumber).toBe(12);
    expect((await git.commit(squash)).prNumber).toBe(34);
    expect(pullRequestNumber('Bump (#5) in the middle')).toBeUndefined();
    expect(pullRequestNumber('Merge branch main')).toBeUndefined();
  });

  it('fails with a typed error naming the URL for a missing repository, and the branch for a missing branch', async () => {
    repo = await makeTestRepo();
    await repo.commit({ 'main.tf': '' }, 'one');
    const missingRepo = `file://${repo.dir}/nope.git`;
    const noRepo = createGitCheckout({ url: missingRepo, branch: 'main', dir: join(repo.dir, 'c1'), env: baseEnv() });
    const repoErr = await noRepo.fetchHead().catch((e: unknown) => e);
    expect(repoErr).toBeInstanceOf(GitError);
    expect(repoErr).toMatchObject({
      code: 'EXTERNAL_SERVICE',
      reason: 'repo_unreachable',
      url: missingRepo,
      branch: 'main',
      retriable: true,
    });
    expect((repoErr as GitError).message).toContain(missingRepo);
    expect((repoErr as GitError).command).toMatch(/^git --git-dir=\S+ fetch --depth=50/);
    expect((repoErr as GitError).exitCode).toBe(128);

    const noBranch = createGitCheckout({
      url: repo.url,
      branch: 'release/9',
      dir: join(repo.dir, 'c2'),
      env: baseEnv(),
    });
    const branchErr = await noBranch.fetchHead().catch((e: unknown) => e);
    expect(branchErr).toMatchObject({ reason: 'branch_not_found', branch: 'release/9', retriable: false });
    expect((branchErr as GitError).message).toContain('branch release/9 does not exist in');
    expect((branchErr as GitError).message).toContain(repo.url);

    const unknownSha = await noBranch.checkout('0'.repeat(40)).catch((e: unknown) => e);
    expect(unknownSha).toMatchObject({ reason: 'commit_not_found', sha: '0'.repeat(40) });
  });

  it('passes the token in the child environment only: never in argv, errors or logs', async () => {
    repo = await makeTestRepo();
    const a = await repo.commit({ 'main.tf': '' }, 'one');
    const { calls, exec } = recordingExec();
    const { lines, logger } = lineLogger();
    const env = { ...baseEnv(), GIT_TOKEN: TOKEN };
    const sources = createGitSources({ dataDir: join(repo.dir, 'data'), env, exec, logger });
    const good = sources.checkout({ url: repo.url, branch: 'main', tokenEnv: 'GIT_TOKEN' });
    expect((await good.fetchHead()).sha).toBe(a);
    await (await good.checkout(a)).release();
    const bad = sources.checkout({ url: `file://${repo.dir}/missing.git`, branch: 'main', tokenEnv: 'GIT_TOKEN' });
    const err = (await bad.fetchHead().catch((e: unknown) => e)) as GitError;
    expect(err).toBeInstanceOf(GitError);

    expect(calls.length).toBeGreaterThan(5);
    for (const call of calls) {
      for (const arg of call.args) {
        expect(arg).not.toContain(TOKEN);
        expect(arg).not.toContain(TOKEN_B64);
      }
      expect(call.env.GIT_CONFIG_VALUE_0).toBe(`Authorization: Basic ${TOKEN_B64}`);
      expect(call.env.GIT_TERMINAL_PROMPT).toBe('0');
    }
    for (const text of [err.message, err.command, err.stderrTail, err.url, ...lines]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(TOKEN_B64);
    }
    expect(lines.length).toBeGreaterThan(0);
    expect(() => sources.checkout({ url: repo!.url, branch: 'dev', tokenEnv: 'UNSET_TOKEN' })).toThrow(
      /UNSET_TOKEN is not set/,
    );
  });

  it('scopes the header to an HTTPS origin and masks it in what git prints', async () => {
    repo = await makeTestRepo();
    const { calls, exec } = recordingExec();
    // Port 9 on loopback: nothing listens, so the fetch fails fast without leaving the machine.
    const url = 'https://127.0.0.1:9/org/infra.git';
    const git = createGitCheckout({
      url,
      branch: 'main',
      dir: join(repo.dir, 'clone'),
      env: baseEnv(),
      token: TOKEN,
      exec,
    });
    const err = (await git.fetchHead().catch((e: unknown) => e)) as GitError;
    expect(err).toMatchObject({ reason: 'repo_unreachable', url });
    expect(calls.at(-1)!.env.GIT_CONFIG_KEY_0).toBe('http.https://127.0.0.1:9/.extraHeader');
    expect(err.message).not.toContain(TOKEN);
  });
});
