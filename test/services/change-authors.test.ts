import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGitSources } from '../../src/adapters/git/git-sources.js';
import { openSqliteStore, type SqliteStore } from '../../src/adapters/store/open-sqlite-store.js';
import { parseConfig } from '../../src/config/load.js';
import type { Run } from '../../src/domain/run/model.js';
import { changeAuthors, githubLoginOf } from '../../src/services/change-authors.js';
import { makeTestRepo, type TestRepo } from '../adapters/git/git-repo.js';
import { gitStackYaml } from '../helpers/git-stack.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

let repo: TestRepo | undefined;
let tf: TestTerraformEnv | undefined;
let store: SqliteStore | undefined;
afterEach(async () => {
  store?.close();
  await repo?.cleanup();
  await tf?.cleanup();
  repo = tf = store = undefined;
});

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
    repo = await makeTestRepo();
    tf = await makeTerraformEnv('driftgate-authors-');
    const env = { PATH: process.env.PATH, HOME: tf.dir, ...tf.env };
    const dataDir = join(tf.dir, 'data');
    const config = await parseConfig(gitStackYaml(dataDir, repo.url), { baseDir: tf.dir, env });
    const stack = config.stacks[0]!;
    const a = await repo.commit({ 'db/main.tf': '' }, 'Add db');
    const b = await repo.commit({ 'db/main.tf': '# resized\n' }, 'Resize db (#34)');
    store = openSqliteStore({ path: join(dataDir, 'driftgate.db') });
    store.upsertStack(stack.name);
    store.setLastAppliedCommit(stack.name, a);
    const deps = {
      git: createGitSources({ dataDir, env }),
      store,
      stack: () => stack,
      logger: { warn: () => undefined },
    };
    // As a check would have done before anyone can approve its run.
    await deps.git.checkout(stack.git!).fetchHead();
    const run = (kind: Run['kind']): Run => ({
      id: 'r_1',
      stack: stack.name,
      state: 'pending_approval',
      trigger: 'schedule',
      kind,
      commitSha: b,
      createdAt: new Date(),
      updatedAt: new Date(),
    });

    expect(await changeAuthors(deps, run('pending_change'))).toEqual(['ada@example.com']);
    expect(await changeAuthors(deps, run('drift'))).toEqual([]);
  });
});
