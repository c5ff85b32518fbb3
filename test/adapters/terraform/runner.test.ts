import { cp, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StackDirError, TerraformBinaryMissingError, TerraformError } from '../../../src/domain/errors.js';
import { stackConfig } from '../../helpers/stack-config.js';
import { testRunner, useTerraformTestDirs, writeFiles } from './fixtures.js';

const SECRET = 'hunter2-do-not-leak';

const dirs = useTerraformTestDirs('driftgate-runner-');

describe('terraform runner on real terraform', () => {
  it('inits only when needed, plans, applies, and keeps vars out of argv', async () => {
    const dir = join(dirs.tmp, 'stack');
    await writeFiles(dir, {
      'main.tf': `
variable "secret" { type = string }
variable "from_file" { type = string }
module "m" { source = "./mod" }
resource "terraform_data" "a" {
  input = { secret = var.secret, from_file = var.from_file, m = module.m.value }
}
`,
      'mod/main.tf': 'output "value" { value = "from-mod" }\n',
      'prod.tfvars': 'from_file = "file-value"\n',
    });
    const stack = stackConfig('test', dir, { vars: { secret: SECRET }, varFiles: ['prod.tfvars'] });
    const { runner, argvs } = testRunner(dirs.tfEnv, dirs.tmp);
    const planFile = join(dirs.tmp, 'plans', 'first.tfplan');

    const first = await runner.plan(stack, planFile);
    expect(first).toMatchObject({ initRan: true, hasChanges: true, exitCode: 2, planFile, truncated: false });
    await expect(stat(join(dir, '.terraform', 'driftgate-init.sha256'))).resolves.toBeTruthy();

    const plan = JSON.parse(await runner.showJson(stack, planFile)) as {
      variables: Record<string, { value: unknown }>;
    };
    expect(plan.variables.secret?.value).toBe(SECRET);
    expect(plan.variables.from_file?.value).toBe('file-value');

    await runner.apply(stack, planFile);
    const second = await runner.plan(stack, join(dirs.tmp, 'plans', 'second.tfplan'));
    expect(second).toMatchObject({ initRan: false, hasChanges: false, exitCode: 0 });

    // A changed lock file means new provider pins: init again.
    await writeFile(join(dir, '.terraform.lock.hcl'), '# pins changed\n');
    expect((await runner.plan(stack, planFile)).initRan).toBe(true);

    // A changed module source is not installed until init: without it this plan would fail.
    await cp(join(dir, 'mod'), join(dir, 'mod2'), { recursive: true });
    const main = await readFile(join(dir, 'main.tf'), 'utf8');
    await writeFile(join(dir, 'main.tf'), main.replace('"./mod"', '"./mod2"'));
    expect(await runner.plan(stack, planFile)).toMatchObject({ initRan: true, hasChanges: false });

    const commands = argvs();
    expect(commands.filter((c) => / init /.test(c))).toHaveLength(3);
    expect(commands.some((c) => c.includes(`-var-file=${join(dir, 'prod.tfvars')}`))).toBe(true);
    for (const command of commands) expect(command).not.toContain(SECRET);
  });

  it('creates and selects a non-default workspace', async () => {
    const dir = join(dirs.tmp, 'ws');
    await writeFiles(dir, { 'main.tf': 'resource "terraform_data" "a" { input = terraform.workspace }\n' });
    const stack = stackConfig('test', dir, { workspace: 'staging' });
    const { runner } = testRunner(dirs.tfEnv, dirs.tmp);
    const planFile = join(dirs.tmp, 'ws.tfplan');
    expect(await runner.plan(stack, planFile)).toMatchObject({ initRan: true, hasChanges: true });
    const plan = JSON.parse(await runner.showJson(stack, planFile)) as {
      planned_values: { root_module: { resources: { values: { input: unknown } }[] } };
    };
    expect(plan.planned_values.root_module.resources[0]?.values.input).toBe('staging');
    expect((await stat(join(dir, 'terraform.tfstate.d', 'staging'))).isDirectory()).toBe(true);
  });

  it('fails a plan with a redacted stderr tail', async () => {
    const dir = join(dirs.tmp, 'bad-plan');
    await writeFiles(dir, { 'main.tf': 'resource "terraform_data" "a" { input = file("no-such-file.txt") }\n' });
    const { runner } = testRunner(dirs.tfEnv, dirs.tmp, { redact: (t) => t.replaceAll('no-such-file', '[REDACTED]') });
    const err = await runner.plan(stackConfig('test', dir), join(dirs.tmp, 'p.tfplan')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TerraformError);
    expect(err).toMatchObject({ code: 'TERRAFORM_FAILED', command: 'plan', exitCode: 1 });
    const { stderrTail, message } = err as TerraformError;
    expect(stderrTail).toContain('[REDACTED].txt');
    expect(`${stderrTail}${message}`).not.toContain('no-such-file');
    expect(stderrTail.split('\n').length).toBeLessThanOrEqual(30);
  });

  it('fails init on bad HCL and names a missing stack dir', async () => {
    const dir = join(dirs.tmp, 'bad-hcl');
    await writeFiles(dir, { 'main.tf': 'resource "terraform_data" "a" {\n' });
    const { runner } = testRunner(dirs.tfEnv, dirs.tmp);
    await expect(runner.plan(stackConfig('test', dir), join(dirs.tmp, 'p.tfplan'))).rejects.toMatchObject({
      code: 'TERRAFORM_FAILED',
      command: 'init',
      stderrTail: expect.stringMatching(/Unclosed configuration block|Argument or block definition required/),
    });
    const missing = join(dirs.tmp, 'nope');
    const stack = stackConfig('test', missing, { configKey: 'stacks[3]' });
    const err = await runner.plan(stack, join(dirs.tmp, 'p.tfplan')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StackDirError);
    expect(err).toMatchObject({ code: 'STACK_DIR_UNUSABLE', problem: { kind: 'missing' } });
    expect((err as StackDirError).message).toBe(`stacks[3].dir: directory ${missing} of stack "test" does not exist`);
  });

  it('keeps the tail of long output and marks it truncated', async () => {
    const dir = join(dirs.tmp, 'long');
    await writeFiles(dir, { 'main.tf': 'resource "terraform_data" "a" {\n  count = 40\n  input = count.index\n}\n' });
    const { runner } = testRunner(dirs.tfEnv, dirs.tmp, { outputLimitBytes: 300 });
    const planFile = join(dirs.tmp, 'long.tfplan');
    const result = await runner.plan(stackConfig('test', dir), planFile);
    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(300);
    // terraform's last words are kept; the head (`terraform_data.a[0]`) is gone.
    expect(result.stdout.trimEnd().endsWith('Plan: 40 to add, 0 to change, 0 to destroy.')).toBe(true);
    expect(result.stdout).not.toContain('terraform_data.a[0]');
  });

  it('reports the version and a missing binary', async () => {
    const { runner } = testRunner(dirs.tfEnv, dirs.tmp);
    const version = await runner.version();
    expect(version).toMatchObject({ flavor: 'terraform', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(version.path.startsWith('/')).toBe(true);
    expect(await runner.version()).toBe(version);

    const notExecutable = join(dirs.tmp, 'terraform-not-executable');
    await writeFile(notExecutable, '#!/bin/sh\n', { mode: 0o644 });
    const stackDir = join(dirs.tmp, 'binary-check');
    await writeFiles(stackDir, { 'main.tf': '' });
    for (const binary of ['no-such-terraform-binary', notExecutable]) {
      const missing = testRunner(dirs.tfEnv, dirs.tmp, { binary }).runner;
      const err = await missing
        .plan(stackConfig('test', stackDir), join(dirs.tmp, 'p.tfplan'))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TerraformBinaryMissingError);
      expect((err as Error).message).toContain('terraform.binary');
    }
  });
});
