/** A `terraform_data` stack in a real git repository, checked by an app context: the Git source tests' setup. */
import { join } from 'node:path';
import { createGitSources } from '../../src/adapters/git/git-sources.js';
import { createAppContext, type AppContext } from '../../src/app/context.js';
import { parseConfig } from '../../src/config/load.js';
import { makeTestRepo, type TestRepo } from '../adapters/git/git-repo.js';
import { configYaml, gitSource, stackEntry } from './config-builder.js';
import { lineSink } from './stack-files.js';
import { makeTerraformEnv, type TestTerraformEnv } from './terraform-env.js';

/** State lives outside the repository: a worktree is removed after each check, a state file must not be. */
export const stackHcl = (statePath: string, size: string) => `
terraform {
  backend "local" { path = ${JSON.stringify(statePath)} }
}
resource "terraform_data" "db" {
  input = { size = "${size}" }
}
`;

export interface GitStackEnv {
  repo: TestRepo;
  tf: TestTerraformEnv;
  context: AppContext;
  env: Record<string, string | undefined>;
  dataDir: string;
  cleanup(): Promise<void>;
}

/** driftgate.yml with the one stack `prod/db`, whose dir `db` is in the repository at `url`. */
export const gitStackYaml = (dataDir: string, url: string, git: Parameters<typeof gitSource>[1] = {}) =>
  configYaml(
    { version: 1, dataDir, stacks: [stackEntry('prod/db', 'db', { emptyState: 'plan' })] },
    gitSource(url, git),
  );

/** A repo whose stack `prod/db` lives in `db/`, and an app context reading it from the repo's `main`. */
export async function makeGitStackEnv(): Promise<GitStackEnv> {
  const repo = await makeTestRepo();
  const tf = await makeTerraformEnv('driftgate-gitstack-');
  const env = { PATH: process.env.PATH, HOME: tf.dir, ...tf.env };
  const dataDir = join(tf.dir, 'data');
  const context = await createAppContext(await parseConfig(gitStackYaml(dataDir, repo.url), { baseDir: tf.dir, env }), {
    env,
    logDestination: lineSink().stream,
  });
  return {
    repo,
    tf,
    context,
    env,
    dataDir,
    async cleanup() {
      await context.close();
      await repo.cleanup();
      await tf.cleanup();
    },
  };
}

export const gitSourcesOf = (s: GitStackEnv) => createGitSources({ dataDir: s.dataDir, env: s.env });
