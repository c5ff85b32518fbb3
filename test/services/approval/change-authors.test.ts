import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitSources } from '../../../src/adapters/git/git-sources.js';
import { createGitHubClient } from '../../../src/adapters/github/client.js';
import { openSqliteStore, type SqliteStore } from '../../../src/adapters/store/sqlite/open-sqlite-store.js';
import { parseConfig } from '../../../src/config/load.js';
import type { Run } from '../../../src/domain/run/model.js';
import { changeAuthors, githubLoginOf } from '../../../src/services/approval/change-authors.js';
import { makeTestRepo, type TestRepo } from '../../adapters/git/git-repo.js';
import { gitStackYaml } from '../../helpers/git-stack.js';
import { startGitHubEmulator, type GitHubEmulator } from '../../helpers/github-emulator/index.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../../helpers/terraform-env.js';

let repo: TestRepo | undefined;
let tf: TestTerraformEnv | undefined;
let store: SqliteStore | undefined;
let github: GitHubEmulator | undefined;
afterEach(async () => {
  await store?.close();
  await github?.close();
  await repo?.cleanup();
  await tf?.cleanup();
  repo = tf = store = github = undefined;
});

const MALLORY = { name: 'Mallory', email: 'mallory@example.com' };
const GRACE = { name: 'Grace Hopper', email: 'grace@example.com' };

/** A Git stack `prod/db` in a real repository, a real SQLite store, and what changeAuthors needs. */
async function gitStack(options: { repository?: string } = {}) {
  repo = await makeTestRepo();
  tf = await makeTerraformEnv('driftgate-authors-');
  const env = { PATH: process.env.PATH, HOME: tf.dir, ...tf.env };
  const dataDir = join(tf.dir, 'data');
  const config = await parseConfig(gitStackYaml(dataDir, repo.url, options), { baseDir: tf.dir, env });
  const stack = config.stacks[0]!;
  store = openSqliteStore({ path: join(dataDir, 'driftgate.db') });
  await store.upsertStack(stack.name);
  const deps = {
    git: createGitSources({ dataDir, env }),
    store,
    stack: () => stack,
    logger: { warn: () => undefined },
  };
  /** A run at `commitSha` as a check records it: created in the store, after the branch was fetched. */
  const runAt = async (commitSha: string, kind: Run['kind'] = 'pending_change'): Promise<Run> => {
    await deps.git.checkout(stack.git!).fetchHead();
    return { ...(await store!.createRun({ stack: stack.name, trigger: 'schedule', commitSha })), kind };
  };
  /** `count` commits by Ada on top of the branch. */
  const later = (count: number) => repo!.commitSteps(count, 'db/main.tf');
  return { repo, stack, store, deps, runAt, later };
}

describe('who authored a pending change', () => {
  it.each([
    ['12345+octocat@users.noreply.github.com', 'octocat'],
    ['octo-cat@users.noreply.github.com', 'octo-cat'],
    ['ada@example.com', undefined],
    ['x@users.noreply.github.com.evil.com', undefined],
  ])('githubLoginOf(%s) = %s', (email, login) => {
    expect(githubLoginOf(email)).toBe(login);
  });

  it('names the authors of the commits since the last applied one, and nobody for drift', async () => {
    const { repo, stack, store, deps, runAt } = await gitStack();
    const a = await repo.commit({ 'db/main.tf': '' }, 'Add db');
    await store.setLastAppliedCommit(stack.name, a);
    const b = await repo.commit({ 'db/main.tf': '# resized\n' }, 'Resize db (#34)');

    expect(await changeAuthors(deps, await runAt(b))).toEqual(['ada@example.com']);
    expect(await changeAuthors(deps, await runAt(a, 'drift'))).toEqual([]);
  });

  it.each([
    [25, 'more later commits than a message lists'],
    [60, 'a last applied commit older than the 50-commit shallow fetch'],
  ])('names the author of a change buried under %i later commits (%s)', async (count) => {
    const { repo, stack, store, deps, runAt, later } = await gitStack();
    await store.setLastAppliedCommit(stack.name, await repo.commit({ 'db/main.tf': '' }, 'Add db'));
    await repo.commit({ 'db/main.tf': '# resized\n' }, 'Resize db', MALLORY);
    const head = await later(count);

    expect(await changeAuthors(deps, await runAt(head))).toEqual(['ada@example.com', 'mallory@example.com']);
  });

  it('refuses, saying why, when the last applied commit cannot be found in the repository', async () => {
    const { repo, stack, store, deps, runAt } = await gitStack();
    await repo.commit({ 'db/main.tf': '' }, 'Add db');
    await store.setLastAppliedCommit(stack.name, 'e'.repeat(40));
    const head = await repo.commit({ 'db/main.tf': '# resized\n' }, 'Resize db', MALLORY);

    const refused = changeAuthors(deps, await runAt(head));
    await expect(refused).rejects.toMatchObject({ code: 'AUTHORS_UNKNOWN' });
    await expect(refused).rejects.toThrow(`driftgate baseline ${stack.name}`);
  });

  it('without a baseline, names everyone who authored a commit since the stack was first seen', async () => {
    const { repo, deps, runAt, later } = await gitStack();
    await repo.commit({ 'db/main.tf': '' }, 'Before driftgate', MALLORY);
    const first = await repo.commit({ 'db/main.tf': '# first seen\n' }, 'Add db', GRACE);
    await runAt(first, 'drift');
    await repo.commit({ 'db/main.tf': '# resized\n' }, 'Resize db');
    const head = await later(3);

    // No baseline: the plan is classified as drift, yet the code moved since the stack was first seen.
    expect((await changeAuthors(deps, await runAt(head, 'drift'))).sort()).toEqual([
      'ada@example.com',
      'grace@example.com',
    ]);
  });

  it('without a baseline, refuses with the next step on the first plan of a stack with changes', async () => {
    // Failed before: the stack first seen at this very commit cleared everyone but the head commit's author.
    const { repo, stack, deps, runAt } = await gitStack();
    await repo.commit({ 'db/main.tf': '' }, 'Add db', MALLORY);
    const head = await repo.commit({ 'db/main.tf': '# resized\n' }, 'Resize db');

    const refused = changeAuthors(deps, await runAt(head, 'drift'));
    await expect(refused).rejects.toMatchObject({ code: 'AUTHORS_UNKNOWN' });
    await expect(refused).rejects.toThrow(`first saw ${stack.name} at this plan's commit`);
    await expect(refused).rejects.toThrow(`driftgate baseline ${stack.name} --commit SHA`);
  });

  it('without a baseline, refuses with the next step when the first commit seen is gone', async () => {
    const { repo, stack, store, deps, runAt } = await gitStack();
    await store.createRun({ stack: stack.name, trigger: 'schedule', commitSha: 'd'.repeat(40) });
    const head = await repo.commit({ 'db/main.tf': '# resized\n' }, 'Resize db');

    const refused = changeAuthors(deps, await runAt(head, 'drift'));
    await expect(refused).rejects.toMatchObject({ code: 'AUTHORS_UNKNOWN' });
    await expect(refused).rejects.toThrow(`driftgate baseline ${stack.name}`);
  });

  it('refuses with a retry hint when GitHub fails, instead of leaving out the PR author', async () => {
    const { repo, stack, store, deps, runAt } = await gitStack({ repository: 'acme/infra' });
    await store.setLastAppliedCommit(stack.name, await repo.commit({ 'db/main.tf': '' }, 'Add db'));
    const head = await repo.commit({ 'db/main.tf': '# resized\n' }, 'Resize db');
    github = await startGitHubEmulator({ repoDir: join(repo.dir, 'origin.git'), owner: 'acme', repo: 'infra' });
    const client = createGitHubClient(
      { apiUrl: github.apiUrl, auth: { type: 'token', token: github.token } },
      { retries: 0, writeSpacingMs: 0 },
    );
    const run = await runAt(head);

    github.failNext(1, 502);
    const refused = changeAuthors({ ...deps, github: client }, run);
    await expect(refused).rejects.toMatchObject({ code: 'AUTHORS_UNKNOWN' });
    await expect(refused).rejects.toThrow('try again');
    expect(await changeAuthors({ ...deps, github: client }, run)).toEqual(['ada@example.com']);
  });
});
