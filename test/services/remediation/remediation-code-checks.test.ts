/** terraform's checks of rewritten code (fmt -check, validate, the provider schema), with real terraform. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TerraformError } from '../../../src/domain/errors.js';
import { terraformCodeChecks } from '../../../src/services/remediation/remediation-code-checks.js';
import { stackConfig } from '../../helpers/stack-config.js';
import { testRunner, useTerraformTestDirs, writeFiles } from '../../adapters/terraform/fixtures.js';

const dirs = useTerraformTestDirs('driftgate-code-checks-');

const CLEAN = 'resource "terraform_data" "a" {\n  input = "x"\n}\n';

async function setup(files: Record<string, string>, options: { redact?: (text: string) => string } = {}) {
  const dir = join(dirs.tmp, 'stack');
  await writeFiles(dir, files);
  const { runner, argvs } = testRunner(dirs.tfEnv, dirs.tmp, options);
  const warnings: { obj: object; msg?: string }[] = [];
  const checks = terraformCodeChecks(runner, { warn: (obj, msg) => warnings.push({ obj, msg }) });
  return { stack: stackConfig('checks', dir), runner, checks, argvs, warnings };
}

describe('terraformCodeChecks', () => {
  it('passes fmt-clean, valid code, checking only the files it is given', async () => {
    const { stack, checks, argvs } = await setup({ 'main.tf': CLEAN, 'other.tf': 'locals {\na=1\n}\n' });
    await checks.verify(stack, ['main.tf']);
    expect(argvs().map((a) => a.split(' ').slice(1).join(' '))).toEqual([
      'fmt -check -diff -no-color -- main.tf',
      'init -input=false -no-color -reconfigure -lock-timeout=10s',
      'validate -no-color',
    ]);
  });

  it('refuses a file that is not in canonical format, with the diff and the name of the file', async () => {
    const { stack, checks, argvs } = await setup(
      { 'main.tf': 'resource "terraform_data" "a" {\ninput="secret-ish"\n}\n' },
      { redact: (t) => t.replaceAll('secret-ish', '***') },
    );
    const err = await checks.verify(stack, ['main.tf']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TerraformError);
    expect((err as TerraformError).message).toMatch(
      /^terraform fmt -check exited with code 3:\nmain.tf\n--- old\/main.tf\n\+\+\+ new\/main.tf\n/,
    );
    expect((err as TerraformError).message).toContain('+  input = "***"');
    expect((err as TerraformError).message).not.toContain('secret-ish');
    // validate does not run once fmt failed.
    expect(argvs()).toHaveLength(1);
  });

  it('tells which files are not formatted, and fails on a file fmt cannot read', async () => {
    const { stack, checks, runner } = await setup({
      'main.tf': CLEAN,
      'messy.tf': 'locals {\na=1\n}\n',
      'broken.tf': 'locals {\n',
    });
    expect(await checks.unformatted(stack, ['main.tf', 'messy.tf'])).toEqual(['messy.tf']);
    expect(await checks.unformatted(stack, ['main.tf'])).toEqual([]);
    const err = await runner.fmtCheck(stack, ['broken.tf']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TerraformError);
    expect((err as TerraformError).message).toContain('broken.tf');
  });

  it('refuses code that does not validate, with terraform’s diagnostic', async () => {
    const { stack, checks } = await setup({ 'main.tf': 'resource "terraform_data" "a" {\n  inputs = "x"\n}\n' });
    const err = await checks.verify(stack, ['main.tf']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TerraformError);
    expect((err as TerraformError).command).toBe('validate');
    expect((err as TerraformError).message).toContain('Unsupported argument');
    expect((err as TerraformError).message).toContain('An argument named "inputs" is not expected here.');
  });

  it('reads settable from the provider schema', async () => {
    const { stack, checks, warnings } = await setup({ 'main.tf': CLEAN });
    const settable = await checks.settable(stack);
    expect(settable?.('terraform_data', 'input')).toBe(true);
    expect(settable?.('terraform_data', 'id')).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('answers undefined and says why when the schema cannot be read (a provider that cannot be installed)', async () => {
    const { stack, checks, warnings } = await setup({
      'main.tf': 'terraform {\n  required_providers {\n    nope = { source = "example.invalid/acme/nope" }\n  }\n}\n',
    });
    expect(await checks.settable(stack)).toBeUndefined();
    expect(warnings).toEqual([
      {
        obj: expect.objectContaining({
          stack: 'checks',
          error: expect.stringContaining('terraform init exited with code 1'),
        }),
        msg: expect.stringContaining('provider schema unavailable'),
      },
    ]);
  });

  it('passes an abort on instead of reading it as a missing schema', async () => {
    const { stack, checks } = await setup({ 'main.tf': CLEAN });
    const controller = new AbortController();
    controller.abort();
    await expect(checks.settable(stack, controller.signal)).rejects.toThrow(/aborted/);
  });
});
