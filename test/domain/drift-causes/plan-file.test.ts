import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import {
  lockFileProviders,
  moduleManifest,
  planFileEvidence,
  stateHeader,
} from '../../../src/domain/drift-causes/plan-file.js';
import { makeTerraformEnv } from '../../helpers/terraform-env.js';

describe('what a saved plan file holds beside the plan', () => {
  it('the lock file: each provider and its version', () => {
    const lock = `# This file is maintained automatically by "terraform init".
provider "registry.terraform.io/hashicorp/aws" {
  version     = "5.100.0"
  constraints = ">= 5.0.0"
  hashes = [
    "h1:abc=",
  ]
}

provider "registry.terraform.io/hashicorp/random" {
  version = "3.6.3"
}
`;
    expect(lockFileProviders(lock)).toEqual({
      'registry.terraform.io/hashicorp/aws': '5.100.0',
      'registry.terraform.io/hashicorp/random': '3.6.3',
    });
  });

  it('the module manifest: each call but the root, with the version init resolved', () => {
    const manifest = JSON.stringify([
      { Key: '', Source: '', Dir: '.' },
      {
        Key: 'vpc',
        Source: 'registry.terraform.io/terraform-aws-modules/vpc/aws',
        Version: '5.1.0',
        Dir: '.terraform/modules/vpc',
      },
      { Key: 'vpc.subnets', Source: './subnets', Dir: '.terraform/modules/vpc/subnets' },
    ]);
    expect(moduleManifest(manifest)).toEqual({
      vpc: { source: 'registry.terraform.io/terraform-aws-modules/vpc/aws', version: '5.1.0' },
      'vpc.subnets': { source: './subnets', version: '' },
    });
  });

  it('masks the credentials a module source carries: userinfo, an ssh key, keys in the query', () => {
    const manifest = JSON.stringify([
      { Key: 'a', Source: 'git::https://oauth2:glpat-SECRETTOKEN@gitlab.example.com/infra/vpc.git?ref=v1.2.0' },
      { Key: 'b', Source: 'git::ssh://git@github.com/acme/net.git?sshkey=LS0tLS1CRUdJTiBPUEVOU1NI&ref=main' },
      {
        Key: 'c',
        Source:
          's3::https://s3-eu-west-1.amazonaws.com/mods/vpc.zip?aws_access_key_id=AKIAEXAMPLE&aws_access_key_secret=wJalrSECRET&region=eu-west-1',
      },
      { Key: 'd', Source: 'github.com/acme/net?ref=v2' },
    ]);
    const modules = moduleManifest(manifest);
    expect(Object.values(modules).map((m) => m.source)).toEqual([
      'git::https://***@gitlab.example.com/infra/vpc.git?ref=v1.2.0',
      'git::ssh://***@github.com/acme/net.git?sshkey=***&ref=main',
      's3::https://s3-eu-west-1.amazonaws.com/mods/vpc.zip?aws_access_key_id=***&aws_access_key_secret=***&region=eu-west-1',
      'github.com/acme/net?ref=v2',
    ]);
    expect(JSON.stringify(modules)).not.toMatch(/SECRETTOKEN|LS0tLS1|AKIAEXAMPLE|wJalrSECRET/);
  });

  it("the state's serial and lineage from its head; anything else is left out, not guessed", () => {
    expect(
      stateHeader('{\n  "version": 4,\n  "terraform_version": "1.11.4",\n  "serial": 43,\n  "lineage": "6c1e-4b"'),
    ).toEqual({
      serial: 43,
      lineage: '6c1e-4b',
    });
    expect(stateHeader('{"version": 4, "serial": 4')).toBeUndefined();
    expect(stateHeader('{"version": 4, "serial": 0, "lineage": ""')).toBeUndefined();
    expect(planFileEvidence(Buffer.from('not a zip at all'))).toEqual({});
  });
});

describe('a real saved plan file', () => {
  it('gives the module calls and the state serial and lineage terraform wrote', async () => {
    const tf = await makeTerraformEnv('driftgate-planfile-');
    try {
      const run = (...args: string[]) => execa('terraform', args, { cwd: tf.dir, env: tf.env });
      await mkdir(join(tf.dir, 'mod'));
      await writeFile(join(tf.dir, 'mod', 'main.tf'), 'resource "terraform_data" "b" {\n  input = "y"\n}\n');
      await writeFile(
        join(tf.dir, 'main.tf'),
        'module "m" {\n  source = "./mod"\n}\nresource "terraform_data" "a" {\n  input = "x"\n}\n',
      );
      await run('init', '-input=false', '-no-color');
      await run('apply', '-auto-approve', '-input=false', '-no-color');
      await run('plan', '-input=false', '-no-color', '-out=plan.tfplan');
      const state = JSON.parse(await readFile(join(tf.dir, 'terraform.tfstate'), 'utf8')) as {
        serial: number;
        lineage: string;
      };
      expect(state.serial).toBeGreaterThan(0);
      expect(planFileEvidence(await readFile(join(tf.dir, 'plan.tfplan')))).toEqual({
        providers: {},
        modules: { m: { source: './mod', version: '' } },
        state: { serial: state.serial, lineage: state.lineage },
      });
    } finally {
      await tf.cleanup();
    }
  }, 60_000);
});
