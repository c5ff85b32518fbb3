import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceHeadCheckouts } from '../../src/adapters/git/source-head.js';
import { startServe } from '../../src/app/serve.js';
import { loadConfig } from '../../src/config/load.js';
import { makeTestRepo, type TestRepo } from '../adapters/git/git-repo.js';
import { runCli } from '../helpers/cli.js';
import { configYaml } from '../helpers/config-builder.js';
import { waitFor } from '../helpers/process-wait.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

/**
 * `discover` with `source.git`: the globs are matched in a checkout of the branch head, not in the
 * directory the config sits in (here it holds no stack at all), and each stack found is a Git stack,
 * checked out at each check. The stacks need their environment's var file, found through
 * `${stack.environment}` in the checkout: a plan without it fails on the required variable.
 */
const STACK = `terraform {
  backend "local" {}
}
variable "env" {
  type = string
  validation {
    condition     = contains(["dev", "prod"], var.env)
    error_message = "env is dev or prod."
  }
}
`;

let tf: TestTerraformEnv;
let repo: TestRepo;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-discover-git-');
  repo = await makeTestRepo();
  const files: Record<string, string> = {};
  for (const environment of ['dev', 'prod']) {
    files[`infra/environments/${environment}/${environment}.tfvars`] = `env = "${environment}"\n`;
    for (const layer of ['network', 'app']) files[`infra/environments/${environment}/${layer}/main.tf`] = STACK;
  }
  await repo.commit({ ...files, 'infra/modules/shared/main.tf': '# not a stack\n' }, 'Stacks');
  env = { PATH: process.env.PATH, HOME: tf.dir, ...tf.env };
});
afterAll(async () => {
  await repo?.cleanup();
  await tf?.cleanup();
});

async function writeConfig(git: { branch?: string } = {}, rule: Record<string, unknown> = {}) {
  const file = join(tf.dir, 'driftgate.yml');
  await writeFile(
    file,
    configYaml({
      dataDir: join(tf.dir, 'data'),
      source: { git: { url: repo.url, subpath: 'infra', ...git } },
      discover: [{ glob: 'environments/*/*', varFiles: ['../${stack.environment}.tfvars'], ...rule }],
    }),
  );
  return file;
}

async function run(command: string[], git: { branch?: string } = {}, rule: Record<string, unknown> = {}) {
  const file = await writeConfig(git, rule);
  const result = await runCli([...command, '--config', file], { cwd: tf.dir, env });
  return { ...result, file, out: result.stdout + result.stderr };
}

describe('discover with source.git', () => {
  it('validate and check --all find the stacks in the branch head and plan each in its checkout', async () => {
    const validate = await run(['validate']);
    expect(validate.out).toBe(`${validate.file}: ok, 4 stacks\n`);
    expect(validate.code).toBe(0);

    const check = await run(['check', '--all', '--json']);
    const report = JSON.parse(check.stdout) as { stacks: { stack: string; status: string; error?: string }[] };
    expect(report.stacks.map((s) => [s.stack, s.status, s.error])).toEqual([
      ['dev/app', 'no_changes', undefined],
      ['dev/network', 'no_changes', undefined],
      ['prod/app', 'no_changes', undefined],
      ['prod/network', 'no_changes', undefined],
    ]);
    expect(check.code).toBe(0);
  });

  it('finds a stack a later commit adds at the next load', async () => {
    await repo.commit({ 'infra/environments/prod/dns/main.tf': STACK }, 'Add prod/dns');
    const validate = await run(['validate']);
    expect(validate.out).toBe(`${validate.file}: ok, 5 stacks\n`);
    const check = await run(['check', 'prod/dns', '--json']);
    expect(JSON.parse(check.stdout).stacks).toMatchObject([{ stack: 'prod/dns', status: 'no_changes' }]);
  });

  it('refuses stacks of the repository that share one state, as it does local ones', async () => {
    const shared = { backendConfig: { path: join(tf.dir, 'one.tfstate') } };
    const validate = await run(['validate'], {}, shared);
    expect(validate.code).toBe(1);
    expect(validate.out).toContain('stacks "dev/app" (discover[0]) and "dev/network" (discover[0]) use the same state');
  });

  it('names the branch when it does not exist, for validate, check and doctor', async () => {
    for (const command of [['validate'], ['check', '--all'], ['doctor']]) {
      const { code, out } = await run(command, { branch: 'nope' });
      expect(code, command[0]).toBe(1);
      expect(out, command[0]).toContain(
        `source.git.branch: branch "nope" does not exist in ${repo.url}: discover rules are matched in a checkout of it`,
      );
    }
  });

  it('says where it looked when the glob matches nothing there', async () => {
    const { code, out } = await run(['validate'], {}, { glob: 'stacks/*' });
    expect(code).toBe(1);
    expect(out).toContain(
      `discover[0].glob: "stacks/*" matched no directory holding *.tf files (in branch main of ${repo.url}, below infra)`,
    );
  });

  it('serve schedules a stack a commit adds and drops one a commit removes, keeping its stacks while the head is invalid', async () => {
    const options = { file: await writeConfig(), cwd: tf.dir, env, checkoutHead: sourceHeadCheckouts({ env }) };
    const logs = new PassThrough();
    const lines: string[] = [];
    logs.on('data', (chunk) => lines.push(...String(chunk).split('\n').filter(Boolean)));
    const running = await startServe(await loadConfig(options), {
      env,
      port: 0,
      logDestination: logs,
      log: { format: 'json', level: 'info' },
      rediscover: (checkoutHead) => loadConfig({ ...options, checkoutHead }),
      rediscoverMs: 50,
    });
    const names = () => running.context.config.stacks.map((s) => s.name).sort();
    try {
      const atStart = names();
      expect(atStart).toEqual(expect.arrayContaining(['dev/app', 'dev/network', 'prod/app', 'prod/network']));
      expect(atStart).not.toContain('prod/cache');
      await repo.commit({ 'infra/environments/prod/cache/main.tf': STACK }, 'Add prod/cache');
      await waitFor('prod/cache to be found', () => running.context.stack('prod/cache'));
      expect(await running.context.store.getStack('prod/cache')).toBeDefined();
      // Scheduled like the others: a check of it runs, in a checkout of the new head.
      expect((await running.scheduler.request('prod/cache')).status).toBe('no_changes');

      // A head the config cannot load at: logged, and the stacks known are kept.
      await repo.commit({ 'infra/environments/prod/bad name/main.tf': STACK }, 'A dir that is no stack name');
      await waitFor('the failed look to be logged', () =>
        lines.find((l) => l.includes('the stacks cannot be found again')),
      );
      expect(lines.find((l) => l.includes('the stacks cannot be found again'))).toContain(
        'directory environments/prod/bad name gives the stack name',
      );
      expect(names()).toContain('prod/cache');

      await repo.remove(['infra/environments/prod/cache', 'infra/environments/prod/bad name'], 'Remove prod/cache');
      await waitFor('prod/cache to be gone', () => (running.context.stack('prod/cache') ? undefined : true));
      expect(names()).toEqual(atStart);
      await expect(running.scheduler.request('prod/cache')).rejects.toThrow('unknown stack prod/cache');
    } finally {
      await running.stop();
    }
  }, 60_000);
});
