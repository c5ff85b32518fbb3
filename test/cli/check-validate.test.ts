import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import { runCli } from '../helpers/cli.js';
import { configYaml } from '../helpers/config-builder.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

const STACK = `
resource "terraform_data" "bucket" {
  input = { name = "logs", versioning = true }
}
`;

let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let repo: string;

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-cli-');
  repo = join(tf.dir, 'repo');
  for (const name of ['dev/storage', 'prod/storage']) {
    await mkdir(join(repo, 'environments', name), { recursive: true });
    await writeFile(join(repo, 'environments', name, 'main.tf'), STACK);
  }
  await mkdir(join(repo, 'environments/prod/broken'), { recursive: true });
  await writeFile(
    join(repo, 'environments/prod/broken/main.tf'),
    'resource "terraform_data" "x" {\n  input = var.missing\n}\n',
  );
  await writeFile(
    join(repo, 'driftgate.yml'),
    configYaml({ dataDir: join(tf.dir, 'data'), log: { level: 'silent' }, discover: [{ glob: 'environments/*/*' }] }),
  );
  env = { PATH: process.env.PATH, HOME: process.env.HOME, ...tf.env };
});
afterAll(() => tf.cleanup());

/** The repo's config with `emptyState: plan` on its rule, beside it. */
async function emptyStatePlanConfig(): Promise<string> {
  const file = join(repo, 'plan-empty.yml');
  const rule = { glob: 'environments/*/*', emptyState: 'plan' as const };
  await writeFile(file, configYaml({ dataDir: join(tf.dir, 'data'), log: { level: 'silent' }, discover: [rule] }));
  return file;
}

describe('driftgate validate', () => {
  it('prints every error with its path and exits 1', async () => {
    const file = join(tf.dir, 'bad.yml');
    await writeFile(
      file,
      [
        'stacks:',
        '  - { name: a, dir: . }',
        '  - { name: b, dir: . }',
        '  - { name: c, dir: ., schedule: "*/5 * *" }',
        'defaults:',
        '  concurency: 3',
      ].join('\n'),
    );
    const result = await runCli(['validate', '--config', file], { cwd: tf.dir, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('stacks[2].schedule: invalid cron expression "*/5 * *"');
    expect(result.stderr).toMatch(/defaults.*concurency/);
  });

  it('names the config key when the terraform binary is missing', async () => {
    const file = join(tf.dir, 'nobinary.yml');
    await writeFile(file, 'version: 1\nstacks: [{ name: a, dir: . }]\nterraform:\n  binary: /nonexistent/terraform\n');
    const result = await runCli(['validate', '--config', file], { cwd: tf.dir, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/terraform\.binary/);
  });

  it('accepts the discovered stacks', async () => {
    const result = await runCli(['validate'], { cwd: repo, env });
    expect(result.stdout).toMatch(/ok, 3 stacks/);
    expect(result.code).toBe(0);
  });
});

describe('driftgate check', () => {
  it('exits 2 with changes, 0 in sync, 1 on error; --json is machine-readable', async () => {
    // Never applied: every resource would be created into an empty state. One finding, not drift to approve.
    const first = await runCli(['check', 'dev/storage', '--json'], { cwd: repo, env });
    expect(first.code).toBe(1);
    const report = JSON.parse(first.stdout);
    expect(report).toMatchObject({
      version: 1,
      exitCode: 1,
      stacks: [{ stack: 'dev/storage', status: 'errored', finding: 'no_state' }],
    });
    expect(report.stacks[0].error).toMatch(
      /^no state found for dev\/storage in its backend \(workspace default\): all 1 resource\(s\) would be created\. Is the backend or workspace right/,
    );
    const human = await runCli(['check', 'dev/storage'], { cwd: repo, env });
    expect(human.stdout).toMatch(/dev\/storage\s+NO STATE\s+\S+\s+no state found for dev\/storage/);
    expect(human.stdout).not.toContain('DRIFTED');
    // `emptyState: plan`: the same plan is a change to approve, which creates the stack.
    const asChange = await runCli(['check', 'dev/storage', '--json'], {
      cwd: repo,
      env: { ...env, DRIFTGATE_CONFIG: await emptyStatePlanConfig() },
    });
    expect(JSON.parse(asChange.stdout).stacks[0]).toMatchObject({ status: 'drifted', counts: { create: 1 } });
    expect(asChange.code).toBe(2);

    const dir = join(repo, 'environments/dev/storage');
    const { execa } = await import('execa');
    await execa('terraform', ['apply', '-auto-approve', '-input=false'], { cwd: dir, env, extendEnv: false });
    const clean = await runCli(['check', 'dev/storage'], { cwd: repo, env });
    expect(clean.stdout).toMatch(/dev\/storage\s+in sync/);
    expect(clean.code).toBe(0);

    await editResourceInput({ binary: 'terraform', env }, dir, { type: 'terraform_data', name: 'bucket' }, (input) => {
      input.versioning = false;
    });
    const drifted = await runCli(['check', 'dev/*'], { cwd: repo, env });
    expect(drifted.code).toBe(2);
    expect(drifted.stdout).toMatch(/dev\/storage\s+DRIFTED/);
    expect(drifted.stdout).toMatch(/versioning/);

    const broken = await runCli(['check', '--all', '--json'], { cwd: repo, env });
    expect(broken.code).toBe(1);
    const statuses = Object.fromEntries(
      JSON.parse(broken.stdout).stacks.map((s: { stack: string; status: string }) => [s.stack, s.status]),
    );
    expect(statuses).toEqual({ 'dev/storage': 'drifted', 'prod/broken': 'errored', 'prod/storage': 'errored' });
  });

  it("reports a failing plan with terraform's Error block first, the CLI configuration warning after it", async () => {
    // A CLI config file that does not exist: terraform warns about it on stderr before the error.
    const warned = { ...env, TF_CLI_CONFIG_FILE: join(tf.dir, 'missing.tfrc') };
    const human = await runCli(['check', 'prod/broken'], { cwd: repo, env: warned });
    expect(human.code).toBe(1);
    const report = human.stdout.slice(human.stdout.indexOf('=== prod/broken: error'));
    expect(report).toContain('Error: Reference to undeclared input variable');
    expect(report.split('\n')[2]).toMatch(/^Error: /);
    const warning = report.indexOf('Warning:');
    if (warning >= 0) expect(warning).toBeGreaterThan(report.indexOf('Error:'));

    const json = await runCli(['check', 'prod/broken', '--json'], { cwd: repo, env: warned });
    const [stack] = JSON.parse(json.stdout).stacks;
    expect(stack.stderrTail).toMatch(/^Error: Reference to undeclared input variable/);
    expect(stack.error).toMatch(/^terraform plan exited with code 1:\nError: Reference to undeclared input variable/);
  });

  it('refuses an unknown stack with the closest names', async () => {
    const result = await runCli(['check', 'prod/storag'], { cwd: repo, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('did you mean "prod/storage"');
  });

  it('asks for stacks or --all', async () => {
    const result = await runCli(['check'], { cwd: repo, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--all/);
  });
});
