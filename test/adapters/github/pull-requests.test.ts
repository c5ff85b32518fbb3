import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GitHubClient } from '../../../src/ports/github.js';
import { makeGitHubFixture, rejection, type GitHubFixture } from './github-fixture.js';

let f: GitHubFixture;
let client: GitHubClient;
beforeEach(async () => {
  f = await makeGitHubFixture();
  client = f.client();
});
afterEach(() => f.cleanup());

const branchWith = (branch: string, path = 'stacks/db/main.tf') =>
  client.commitToBranch(f.repo, {
    branch,
    parentSha: f.base,
    message: `Change ${path}`,
    files: [{ path, content: `# ${branch}\n` }],
  });

const open = (head: string, extra: { labels?: string[]; draft?: boolean } = {}) =>
  client.openPullRequest(f.repo, {
    head,
    base: 'main',
    title: `Remediate ${head}`,
    body: 'Plan attached.',
    labels: extra.labels ?? [],
    ...(extra.draft === undefined ? {} : { draft: extra.draft }),
  });

describe('GitHubClient pull requests against the emulator', () => {
  it('opens a PR with labels, then finds it by head and base; other heads and bases find nothing', async () => {
    await branchWith('driftgate/prod-db');
    await branchWith('driftgate/prod-web', 'stacks/web/main.tf');
    expect(await client.findOpenPullRequest(f.repo, 'driftgate/prod-db', 'main')).toBeUndefined();

    const pr = await open('driftgate/prod-db', { labels: ['driftgate', 'drift:prod'] });
    await open('driftgate/prod-web');

    expect(pr).toEqual({
      number: 1,
      url: 'https://github.com/acme/infrastructure/pull/1',
      state: 'open',
      merged: false,
      head: 'driftgate/prod-db',
      base: 'main',
      author: 'driftgate-bot',
    });
    expect(f.emulator.pulls()[0]).toMatchObject({
      labels: ['driftgate', 'drift:prod'],
      draft: false,
      body: 'Plan attached.',
    });
    expect(await client.findOpenPullRequest(f.repo, 'driftgate/prod-db', 'main')).toEqual(pr);
    expect(await client.findOpenPullRequest(f.repo, 'driftgate/prod-web', 'main')).toMatchObject({ number: 2 });
    expect(await client.findOpenPullRequest(f.repo, 'driftgate/prod-db', 'release')).toBeUndefined();
    expect(await client.findOpenPullRequest(f.repo, 'driftgate/none', 'main')).toBeUndefined();

    const list = f.emulator.calls('GET').filter((c) => c.path.endsWith('/pulls'));
    expect(list[0]!.query).toMatchObject({ head: 'acme:driftgate/prod-db', base: 'main', state: 'open' });
    // No labels, no label call.
    expect(
      f.emulator
        .calls('POST')
        .filter((c) => c.path.endsWith('/labels'))
        .map((c) => c.path),
    ).toEqual(['/repos/acme/infrastructure/issues/1/labels']);
  });

  it('getPullRequest: a PR by number as it is now (open, merged, closed), undefined for a number that does not exist', async () => {
    await branchWith('driftgate/a');
    await branchWith('driftgate/b', 'stacks/web/main.tf');
    const a = await open('driftgate/a');
    const b = await open('driftgate/b');
    expect(await client.getPullRequest(f.repo, a.number)).toEqual(a);
    await f.emulator.merge(a.number, { method: 'squash' });
    f.emulator.closeUnmerged(b.number);
    expect(await client.getPullRequest(f.repo, a.number)).toMatchObject({ state: 'closed', merged: true });
    expect(await client.getPullRequest(f.repo, b.number)).toMatchObject({ state: 'closed', merged: false });
    expect(await client.getPullRequest(f.repo, 99)).toBeUndefined();
  });

  it('opens a draft when asked', async () => {
    await branchWith('driftgate/draft');
    await open('driftgate/draft', { draft: true, labels: ['driftgate'] });
    expect(f.emulator.pulls()[0]).toMatchObject({ draft: true, labels: ['driftgate'] });
  });

  it("GitHub refusals are 422 GitHubErrors with GitHub's reason: no branch, no commits between, already open", async () => {
    const refused = (head: string) => rejection(open(head));

    const missing = await refused('driftgate/never-pushed');
    expect(missing).toMatchObject({ name: 'GitHubError', status: 422, retriable: false });
    expect(missing.message).toBe(
      'github: open a PR from driftgate/never-pushed into main in acme/infrastructure failed: GitHub refused it (422): Validation Failed: head invalid',
    );

    await f.git('update-ref', 'refs/heads/driftgate/empty', f.base);
    expect((await refused('driftgate/empty')).message).toContain('No commits between main and driftgate/empty');

    await branchWith('driftgate/twice');
    await open('driftgate/twice');
    expect((await refused('driftgate/twice')).message).toContain(
      'A pull request already exists for acme:driftgate/twice.',
    );
  });

  it('pullRequestsOfCommit: the open PR of a branch commit, then the merged PR of its commits and of the merge commit', async () => {
    const { sha } = await branchWith('driftgate/prod-db');
    const pr = await open('driftgate/prod-db');
    expect(await client.pullRequestsOfCommit(f.repo, sha)).toEqual([pr]);
    expect(await client.pullRequestsOfCommit(f.repo, f.base)).toEqual([]);

    const merge = await f.emulator.merge(pr.number, { method: 'merge' });
    expect(await f.git('rev-parse', 'main')).toBe(merge);
    expect(await f.git('rev-parse', `${merge}^1`, `${merge}^2`)).toBe(`${f.base}\n${sha}`);
    const merged = { ...pr, state: 'closed', merged: true };
    expect(await client.pullRequestsOfCommit(f.repo, sha)).toEqual([merged]);
    expect(await client.pullRequestsOfCommit(f.repo, merge)).toEqual([merged]);
  });

  it("pullRequestsOfCommit after a squash merge: one new commit on main, with the PR's change", async () => {
    const { sha } = await branchWith('driftgate/prod-web', 'stacks/web/main.tf');
    const pr = await open('driftgate/prod-web');
    const squash = await f.emulator.merge(pr.number, { method: 'squash' });

    expect(await f.git('rev-list', '--count', `${f.base}..main`)).toBe('1');
    expect(await f.git('log', '-1', '--format=%s', 'main')).toBe(`Remediate driftgate/prod-web (#${pr.number})`);
    expect(await f.git('diff', '--name-only', `${f.base}..main`)).toBe('stacks/web/main.tf');
    expect(await client.pullRequestsOfCommit(f.repo, squash)).toEqual([{ ...pr, state: 'closed', merged: true }]);
    expect(await client.pullRequestsOfCommit(f.repo, sha)).toEqual([{ ...pr, state: 'closed', merged: true }]);
  });
});
