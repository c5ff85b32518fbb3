import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitCheckout } from '../../../src/adapters/git/git-checkout.js';
import { makeTestRepo, type TestRepo } from './git-repo.js';

let repo: TestRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

describe('GitCheckout.commitsBetween on a real repository', () => {
  it('lists the commits after `from` up to `to`, newest first, at most 20; just `to` when `from` is unknown', async () => {
    repo = await makeTestRepo();
    const a = await repo.commit({ 'main.tf': '# A\n' }, 'Add db (#3)');
    const b = await repo.commit({ 'main.tf': '# B\n' }, 'Resize db (#34)');
    const c = await repo.commit({ 'main.tf': '# C\n' }, 'Tune db');
    const git = createGitCheckout({
      url: repo.url,
      branch: 'main',
      dir: join(repo.dir, 'clone'),
      env: { PATH: process.env.PATH, HOME: repo.dir },
    });
    await git.fetchHead();

    const between = await git.commitsBetween(a, c);
    expect(between.map((x) => x.sha)).toEqual([c, b]);
    expect(between[1]).toMatchObject({ author: 'Ada Lovelace', title: 'Resize db (#34)', prNumber: 34 });
    expect(between[0]!.prNumber).toBeUndefined();
    expect(await git.commitsBetween(c, c)).toEqual([]);

    for (const from of [undefined, 'f'.repeat(40), '--all', 'HEAD~1']) {
      expect((await git.commitsBetween(from, c)).map((x) => x.sha)).toEqual([c]);
    }

    for (let i = 0; i < 22; i += 1) await repo.commit({ 'main.tf': `# ${i}\n` }, `Step ${i}`);
    const head = await git.fetchHead();
    const many = await git.commitsBetween(a, head.sha);
    expect(many).toHaveLength(20);
    expect(many[0]!.sha).toBe(head.sha);
    expect(many.map((x) => x.title)).toEqual(Array.from({ length: 20 }, (_, i) => `Step ${21 - i}`));
  });
});
