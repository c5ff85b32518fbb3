import { describe, expect, it } from 'vitest';
import { applyArgs, initArgs, lockTimeoutArg, planArgs } from '../../../src/adapters/terraform/args.js';
import { parseFlavor, parseVersion } from '../../../src/adapters/terraform/binary.js';
import { backendConfigFile, buildChildEnv, varsToEnv } from '../../../src/adapters/terraform/env.js';
import { scanHclBody, unquote } from '../../../src/domain/hcl-scan.js';
import { createMutex } from '../../../src/adapters/terraform/mutex.js';
import { lastLines, TailBuffer } from '../../../src/adapters/terraform/tail-buffer.js';
import { ConfigError } from '../../../src/domain/errors.js';
import { stackConfig } from '../../helpers/stack-config.js';

const TERRAFORM_HUMAN = 'Terraform v1.11.4\non linux_amd64\n';
const TERRAFORM_JSON =
  '{\n  "terraform_version": "1.11.4",\n  "platform": "linux_amd64",\n  "provider_selections": {},\n  "terraform_outdated": false\n}\n';
const TOFU_HUMAN = 'OpenTofu v1.8.3\non linux_amd64\n';
const TOFU_JSON = '{\n  "terraform_version": "1.8.3",\n  "platform": "linux_amd64",\n  "provider_selections": {}\n}\n';

describe('version parsing', () => {
  it.each([
    ['terraform', TERRAFORM_HUMAN, TERRAFORM_JSON, '/usr/bin/terraform', '1.11.4'],
    ['tofu', TOFU_HUMAN, TOFU_JSON, '/usr/bin/tofu', '1.8.3'],
    // OpenTofu installed under the name terraform: the human line decides, not the file name.
    ['tofu', TOFU_HUMAN, TOFU_JSON, '/usr/local/bin/terraform', '1.8.3'],
    ['tofu', 'garbage', '{}', '/opt/bin/tofu-1.8', undefined],
    ['terraform', '', 'not json', '/opt/bin/tf', undefined],
  ] as const)('%s from %j', (flavor, human, json, path, version) => {
    expect(parseFlavor(human, path)).toBe(flavor);
    expect(parseVersion(json, human)).toBe(version);
  });

  it('falls back to the human line when -json is not supported', () => {
    expect(parseVersion('flag provided but not defined: -json', 'Terraform v0.12.31\n')).toBe('0.12.31');
  });
});

describe('TailBuffer', () => {
  it('keeps the tail and says it truncated', () => {
    const buf = new TailBuffer(10);
    for (let i = 0; i < 10; i++) buf.push(Buffer.from(`line${i}\n`));
    expect(buf.text()).toBe('ne8\nline9\n');
    expect(buf.truncated).toBe(true);
  });

  it('keeps everything under the limit', () => {
    const buf = new TailBuffer(100);
    buf.push(Buffer.from('a'));
    buf.push(Buffer.from('b'));
    expect(buf.text()).toBe('ab');
    expect(buf.truncated).toBe(false);
  });

  it('never starts with half a character', () => {
    const buf = new TailBuffer(5);
    buf.push(Buffer.from('ééé')); // 6 bytes; the cut lands inside the first é
    expect(buf.text()).toBe('éé');
  });

  it('lastLines keeps the last lines', () => {
    expect(lastLines('a\nb\nc\n', 2)).toBe('b\nc');
  });
});

describe('scanHclBody', () => {
  const hcl = `
# module "commented" { source = "./nope" }
terraform {
  required_version = ">= 1.5"
  backend "local" {}
}
/* module "also_commented" { source = "./nope" } */
module "net" {
  source  = "terraform-aws-modules/vpc/aws" // trailing comment {
  version = "5.0.0"
  tags = { Name = "x}" }
  nested { source = "not-the-module-source" }
}
locals {
  text = <<-EOT
    module "in_heredoc" { source = "./nope" }
  EOT
  s = "\${jsonencode({ a = "}" })}"
}
resource "terraform_data" "a" { input = "module \\"x\\" {" }
module "local" {
  source = "./mod"
}
`;
  const items = scanHclBody(hcl);
  const blocks = items.flatMap((i) => (i.kind === 'block' ? [`${i.type} ${i.labels.join(' ')}`] : []));

  it('finds the top-level blocks only', () => {
    expect(blocks).toEqual(['terraform ', 'module net', 'locals ', 'resource terraform_data a', 'module local']);
  });

  it("reads a module block's own attributes, not nested ones", () => {
    const net = items.find((i) => i.kind === 'block' && i.labels[0] === 'net');
    const attrs = scanHclBody(net!.kind === 'block' ? net!.body : '').flatMap((a) =>
      a.kind === 'attribute' ? [[a.name, unquote(a.value)]] : [],
    );
    expect(attrs).toEqual([
      ['source', 'terraform-aws-modules/vpc/aws'],
      ['version', '5.0.0'],
      ['tags', '{ Name = "x}" }'],
    ]);
  });
});

describe('env and argv', () => {
  const stack = stackConfig('test', '/stacks/app', {
    vars: { password: 's3cr3t-value', count: 3, enabled: true, tags: { team: 'a' }, zones: ['a', 'b'], unset: null },
    varFiles: ['prod.tfvars', '/abs/common.tfvars'],
    env: { AWS_REGION: 'eu-west-1', TF_WORKSPACE: 'from-stack-env' },
    workspace: 'staging',
    backendConfig: { bucket: 'b', password: 'p${x}%{y}"q', encrypt: true, port: 5 },
  });

  it('puts vars in TF_VAR_*, encoded the way terraform reads them', () => {
    expect(varsToEnv(stack)).toEqual({
      TF_VAR_password: 's3cr3t-value',
      TF_VAR_count: '3',
      TF_VAR_enabled: 'true',
      TF_VAR_tags: '{"team":"a"}',
      TF_VAR_zones: '["a","b"]',
    });
  });

  it('layers base < stack env < driftgate settings and sets TF_WORKSPACE only when asked', () => {
    const base = { PATH: '/bin', TF_VAR_password: 'from-base', UNSET: undefined };
    const env = buildChildEnv({ base, stack, pluginCacheDir: '/cache', withWorkspace: true });
    expect(env).toMatchObject({
      PATH: '/bin',
      AWS_REGION: 'eu-west-1',
      TF_VAR_password: 's3cr3t-value',
      TF_PLUGIN_CACHE_DIR: '/cache',
      TF_WORKSPACE: 'staging',
    });
    expect('UNSET' in env).toBe(false);
    expect(
      buildChildEnv({ base, stack: { ...stack, workspace: undefined }, pluginCacheDir: '/cache', withWorkspace: true })
        .TF_WORKSPACE,
    ).toBe('default');
    expect('TF_WORKSPACE' in buildChildEnv({ base, stack, pluginCacheDir: '/cache', withWorkspace: false })).toBe(
      false,
    );
  });

  it('writes backend config as HCL with templates escaped', () => {
    expect(backendConfigFile(stack)).toBe('bucket = "b"\npassword = "p$${x}%%{y}\\"q"\nencrypt = true\nport = 5\n');
  });

  it('rejects names that are not identifiers, naming the config path', () => {
    const bad = stackConfig('test', '/s', { name: 'app', configKey: 'stacks[2]', vars: { 'bad name': 'x' } });
    expect(() => varsToEnv(bad)).toThrow(ConfigError);
    expect(() => varsToEnv(bad)).toThrow('stacks[2].vars["bad name"]: not a valid terraform identifier');
  });

  it('never puts var or backend values in argv', () => {
    const argv = [
      ...initArgs(300_000, '/tmp/x/backend.tfbackend'),
      ...planArgs(stack, '/plans/p.tfplan', 300_000),
      ...applyArgs('/plans/p.tfplan', 300_000),
    ].join(' ');
    expect(argv).toContain('-var-file=/stacks/app/prod.tfvars');
    expect(argv).toContain('-var-file=/abs/common.tfvars');
    for (const secret of ['s3cr3t-value', 'p${x}', 'team']) expect(argv).not.toContain(secret);
  });

  it('rounds the lock timeout up to whole seconds', () => {
    expect(lockTimeoutArg(1)).toBe('-lock-timeout=1s');
    expect(lockTimeoutArg(300_000)).toBe('-lock-timeout=300s');
  });
});

describe('createMutex', () => {
  it('runs sections one at a time and survives a failing one', async () => {
    const mutex = createMutex();
    const order: string[] = [];
    const section =
      (name: string, fail = false) =>
      async () => {
        order.push(`${name}:start`);
        await new Promise((r) => setImmediate(r));
        order.push(`${name}:end`);
        if (fail) throw new Error(name);
      };
    const results = await Promise.allSettled([mutex.run(section('a', true)), mutex.run(section('b'))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(order).toEqual(['a:start', 'a:end', 'b:start', 'b:end']);
  });
});
