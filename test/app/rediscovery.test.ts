import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitSources } from '../../src/adapters/git/git-sources.js';
import { sourceHeadCheckouts } from '../../src/adapters/git/source-head.js';
import { stacksFoundAgain } from '../../src/app/rediscovery.js';
import { loadConfig } from '../../src/config/load.js';
import { createSecretRegistry } from '../../src/logging/secret-registry.js';
import { makeTestRepo, type TestRepo } from '../adapters/git/git-repo.js';
import { configYaml } from '../helpers/config-builder.js';

/**
 * A worker on the agent API holds its own config: a job for a stack serve found after the worker started
 * has the config loaded again at the branch head, and the stack's config secrets masked, before the job
 * would be refused as naming an unknown stack.
 */
const PASSWORD = 'db-password-of-the-rediscovery-test';
let repo: TestRepo;
let dir: string;

beforeAll(async () => {
  repo = await makeTestRepo();
  await repo.commit({ 'environments/prod/app/main.tf': '# app\n' }, 'One stack');
  dir = await mkdtemp(join(tmpdir(), 'driftgate-rediscovery-'));
});
afterAll(async () => {
  await repo?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a worker's stacks found again", () => {
  it('finds a stack a later commit added, with its config secrets, once per head', async () => {
    const file = join(dir, 'driftgate.yml');
    await writeFile(
      file,
      configYaml({
        dataDir: join(dir, 'data'),
        source: { git: { url: repo.url } },
        discover: [{ glob: 'environments/*/*', vars: { db_password: '${DB_PASSWORD}' } }],
      }),
    );
    const env = { PATH: process.env.PATH, DB_PASSWORD: PASSWORD };
    const options = { file, cwd: dir, env, checkoutHead: sourceHeadCheckouts({ env }) };
    const config = await loadConfig(options);
    expect(config.stacks.map((s) => s.name)).toEqual(['prod/app']);
    const secrets = createSecretRegistry();
    let reloads = 0;
    const lookup = stacksFoundAgain(config, {
      reload: (checkoutHead) => {
        reloads++;
        return loadConfig({ ...options, checkoutHead });
      },
      git: createGitSources({ dataDir: config.dataDir, env }),
      secrets,
      logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    });

    // The head it was loaded at: nothing to load again.
    expect(await lookup('prod/db')).toBeUndefined();
    expect(reloads).toBe(0);

    await repo.commit({ 'environments/prod/db/main.tf': '# db\n' }, 'Add prod/db');
    expect(await lookup('prod/db')).toMatchObject({ name: 'prod/db', git: { path: 'environments/prod/db' } });
    expect(secrets.redact(`password ${PASSWORD}`, 'prod/db')).not.toContain(PASSWORD);
    expect(await lookup('prod/nope')).toBeUndefined();
    expect(reloads).toBe(1);
  });
});
