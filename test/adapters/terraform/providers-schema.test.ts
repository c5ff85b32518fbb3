import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parseProviderSchema, settableFrom } from '../../../src/domain/remediation/index.js';
import { stackConfig } from '../../helpers/stack-config.js';
import { testRunner, useTerraformTestDirs, writeFiles } from './fixtures.js';

const dirs = useTerraformTestDirs('driftgate-schema-');

it('inits once, then returns the whole schema JSON past the output limit, unredacted', async () => {
  const dir = join(dirs.tmp, 'stack');
  await writeFiles(dir, { 'main.tf': 'resource "terraform_data" "a" {\n  input = "x"\n}\n' });
  const stack = stackConfig('test', dir);
  // The builtin provider's schema is ~2.7 kB: a 256-byte limit would cut it, and the redactor would mangle it.
  const { runner, argvs } = testRunner(dirs.tfEnv, dirs.tmp, {
    outputLimitBytes: 256,
    redact: (text) => text.replaceAll('terraform_data', '[REDACTED]'),
  });

  const first = await runner.providersSchema(stack);
  expect(first.length).toBeGreaterThan(256);
  const settable = settableFrom(parseProviderSchema(first));
  expect(settable('terraform_data', 'input')).toBe(true);
  expect(settable('terraform_data', 'output')).toBe(false);

  expect(await runner.providersSchema(stack)).toBe(first);
  expect(argvs().map((a) => a.split(' ').slice(1, 4).join(' '))).toEqual([
    'init -input=false -no-color',
    'providers schema -json',
    'providers schema -json',
  ]);
});
