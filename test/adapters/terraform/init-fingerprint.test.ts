import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  initFingerprint,
  initRelevantConfig,
  type InitInputs,
  readInitStamp,
  stampedDir,
  writeInitStamp,
} from '../../../src/adapters/terraform/init-fingerprint.js';
import { writeFiles } from './fixtures.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'driftgate-fingerprint-'));
  await writeFiles(dir, {
    'main.tf': `
terraform {
  backend "local" {}
}
module "a" {
  source = "./a"
  name   = "input-a"
}
resource "aws_s3_object" "o" {}
`,
    'a/main.tf':
      'module "b" {\n  source  = "../b"\n}\nmodule "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "5.0.0"\n}\n',
    'b/main.tf': 'data "http" "x" {}\nprovider "google" {}\n',
  });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const inputs = (): InitInputs => ({
  dir,
  binaryVersion: 'terraform 1.11.4',
  workspace: 'default',
  backendConfig: { bucket: 'b' },
});

async function edit(file: string, from: string, to: string): Promise<void> {
  const text = await readFile(join(dir, file), 'utf8');
  await writeFile(join(dir, file), text.replace(from, to));
}

describe('init fingerprint', () => {
  it('follows local modules and collects what init depends on', async () => {
    expect(await initRelevantConfig(dir)).toEqual([
      'module . a ./a ',
      'module a b ../b ',
      'module a vpc terraform-aws-modules/vpc/aws 5.0.0',
      'provider aws',
      'provider google',
      'provider http',
      'terraform . backend "local" {}',
    ]);
  });

  it('changes with module versions, backend settings, workspace and binary, not with module inputs', async () => {
    const base = await initFingerprint(inputs());
    await edit('main.tf', '"input-a"', '"input-changed"');
    expect(await initFingerprint(inputs())).toBe(base);

    expect(await initFingerprint({ ...inputs(), workspace: 'staging' })).not.toBe(base);
    expect(await initFingerprint({ ...inputs(), binaryVersion: 'tofu 1.8.3' })).not.toBe(base);
    expect(await initFingerprint({ ...inputs(), backendConfig: { bucket: 'other' } })).not.toBe(base);
    await edit('a/main.tf', '5.0.0', '5.1.0');
    expect(await initFingerprint(inputs())).not.toBe(base);
  });

  it('a stamp kept outside the stack dir names that dir; one written before reads as it did', async () => {
    const kept = join(dir, 'stamps', 'abc');
    await writeInitStamp(kept, 'f1', '/srv/copies/checkout-1/tree/app');
    expect(await readInitStamp(kept)).toBe('f1');
    expect(await stampedDir(kept)).toBe('/srv/copies/checkout-1/tree/app');
    await writeInitStamp(kept, 'f2');
    expect(await readInitStamp(kept)).toBe('f2');
    expect(await stampedDir(kept)).toBeUndefined();
  });
});
