/**
 * "Open remediation PR" with `runners: workers`: the drift is written into the code and checked by
 * terraform on a worker of the stack's pool, and the commit and the PR are made by the control plane,
 * which alone holds the GitHub token.
 */
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import { makeTestRepo, type TestRepo } from '../adapters/git/git-repo.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { approvers, gitSource, stackEntry } from '../helpers/config-builder.js';
import { startGitHubEmulator, type GitHubEmulator } from '../helpers/github-emulator/index.js';
import { usePostgres } from '../helpers/postgres.js';
import { POOL_CHANNEL, type PoolWorld, startPoolWorld } from '../helpers/pool-world.js';
import { waitFor } from '../helpers/process-wait.js';
import { LEAD1, textOf } from './fixtures.js';

const postgres = usePostgres();
const STACK = 'prod/db';
let world: PoolWorld | undefined;
let repo: TestRepo | undefined;
let github: GitHubEmulator | undefined;
afterEach(async () => {
  await world?.close();
  await github?.close();
  await repo?.cleanup();
  world = repo = github = undefined;
});

const stackHcl = (statePath: string) => `terraform {
  backend "local" { path = ${JSON.stringify(statePath)} }
}

resource "terraform_data" "db" {
  input = {
    size = "small" # the default
    tier = "gold"
  }
}
`;

const codified = (l: string) => l.includes('"job done"') && l.includes('"kind":"codify"');

describe.skipIf(!HAS_BUILD)(`remediation PRs with workers (${HAS_BUILD ? BIN : NO_BUILD_REASON})`, () => {
  it('codifies on a worker of the pool and opens the PR from the control plane', async () => {
    repo = await makeTestRepo();
    const statePath = join(repo.dir, 'state', 'db.tfstate');
    const commit = await repo.commit({ '.gitignore': '.terraform/\n', 'db/main.tf': stackHcl(statePath) }, 'Add db');
    const origin = join(repo.dir, 'origin.git');
    github = await startGitHubEmulator({ repoDir: origin, owner: 'acme', repo: 'infra' });
    world = await startPoolWorld({
      databaseUrl: await postgres.createDatabase(),
      stacks: {},
      config: {
        stacks: [stackEntry(STACK, 'db', { pool: 'prod' })],
        ...gitSource(repo.url, { repository: 'acme/infra' }),
        ...approvers({ dba: [LEAD1] }, [{ stacks: '*', count: 1, from: ['dba'] }]),
      },
      serveEnv: { GITHUB_TOKEN: github.token, GITHUB_API_URL: github.apiUrl },
    });
    const w = world;
    const work = join(repo.dir, 'work', 'db');
    for (const args of [
      ['init', '-input=false'],
      ['apply', '-auto-approve', '-input=false'],
    ])
      await execa('terraform', [...args, '-no-color'], { cwd: work, env: w.baseEnv, extendEnv: false });
    const serve = await w.serve();
    const worker = await w.worker('prod');
    await editResourceInput(
      { binary: 'terraform', env: w.baseEnv },
      work,
      { type: 'terraform_data', name: 'db' },
      (input) => {
        input.size = 'huge';
      },
    );

    expect((await w.command(serve, `check ${STACK}`, LEAD1)).status).toBe(200);
    const alert = await waitFor(
      'the drift alert',
      () => w.emulator.messages(POOL_CHANNEL).find((m) => textOf(m).includes(`Drift detected in ${STACK}`)),
      120_000,
    );
    const run = await w.withStore(async (s) => (await s.listRuns({ stack: STACK, states: ['drifted'] }))[0]);
    expect(run?.commitSha).toBe(commit);
    await w.click(serve, 'driftgate.remediate', run!.id, LEAD1, { channel: alert.channel, ts: alert.ts });

    const [pr] = await waitFor('the PR', () => (github!.pulls().length > 0 ? github!.pulls() : undefined), 120_000);
    expect(pr).toMatchObject({ title: 'Accept drift in prod/db: 1 attribute in 1 resource', base: 'main' });
    expect(pr!.body).toContain('`terraform_data.db` `input.size` in `db/main.tf`: `"small"` → `"huge"`');
    const branch = `driftgate/prod/db/${run!.fingerprint!.slice(0, 12)}`;
    const text = (await execa('git', ['--git-dir', origin, 'show', `${branch}:db/main.tf`])).stdout;
    expect(text).toContain('size = "huge" # the default');
    // The code was written and checked by the worker; the PR came from the control plane's token.
    expect(worker.logs().some(codified)).toBe(true);
    await waitFor('the PR link in the thread', () =>
      w.emulator.messages(POOL_CHANNEL).find((m) => m.threadTs === alert.ts && textOf(m).includes('github')),
    );
  }, 300_000);
});
