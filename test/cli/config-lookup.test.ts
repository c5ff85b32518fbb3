/**
 * Finding the config and saying where it is wrong (issue 25, point 15): the nearest driftgate.yml above the
 * current directory, a directory given to --config, doctor's advice with none at all, and a YAML
 * indentation error at the line and column where the wrongly indented key starts.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let repo: string;
let file: string;

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-config-lookup-');
  env = { PATH: process.env.PATH, HOME: process.env.HOME, ...tf.env };
  repo = join(tf.dir, 'repo');
  await mkdir(join(repo, 'environments/prod/app'), { recursive: true });
  await writeFile(join(repo, 'environments/prod/app/main.tf'), 'resource "terraform_data" "x" {}\n');
  file = join(repo, 'driftgate.yml');
  await writeFile(file, configYaml({ stacks: [stackEntry('prod/app', 'environments/prod/app')] }));
});

afterAll(() => tf.cleanup());

describe('where the config is looked for', () => {
  it('finds driftgate.yml in a directory above the current one, as git finds its repository', async () => {
    const result = await runCli(['validate'], { cwd: join(repo, 'environments/prod/app'), env });
    expect(result.stdout).toBe(`${file}: ok, 1 stack\n`);
    expect(result.code).toBe(0);
  });

  it('takes --config DIR for DIR/driftgate.yml, and names that file when DIR has none', async () => {
    const found = await runCli(['validate', '--config', 'repo'], { cwd: tf.dir, env });
    expect(found.stdout).toBe(`${file}: ok, 1 stack\n`);
    const empty = await runCli(['validate', '--config', 'repo/environments'], { cwd: tf.dir, env });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain(
      `config file ${join(repo, 'environments', 'driftgate.yml')} does not exist (in the directory given with --config)`,
    );
  });

  it('doctor with no config here or above suggests init, not validate', async () => {
    const result = await runCli(['doctor'], { cwd: join(tf.dir), env });
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')[0]).toBe(
      `FAIL config: ${join(tf.dir, 'driftgate.yml')}: config file ${join(tf.dir, 'driftgate.yml')} does not exist (none here or in any directory above; run \`driftgate init\` to write one, or pass --config or set DRIFTGATE_CONFIG to use another file); fix: run driftgate init in the repository of your stacks to write one, or pass --config FILE`,
    );
  });

  it('reports a wrongly indented key at its own line and column', async () => {
    const bad = join(tf.dir, 'indent.yml');
    await writeFile(bad, 'version: 1\nstacks:\n  - name: app\n    dir: app\n   schedule: "@hourly"\n');
    const result = await runCli(['validate', '--config', bad], { cwd: tf.dir, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'error: YAML syntax error at line 5, column 4: Sequence item without - indicator (is line 5 indented like the lines above it?)\n',
    );
  });
});
