import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { configYaml } from '../helpers/config-builder.js';
import { makeTempTree, type TempTree } from '../config/temp-dir.js';

/**
 * Two stacks on one state: each plan shows the other's resources as ones to destroy, with an Approve
 * button. validate, doctor, check and serve refuse such a config, naming both stacks and the state.
 */
const S3_STACK = 'terraform {\n  backend "s3" {}\n}\nresource "terraform_data" "x" {}\n';

let tree: TempTree;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  tree = await makeTempTree('driftgate-shared-state-');
  for (const name of ['prod/vpc', 'prod/dns', 'dev/vpc']) await tree.file(`environments/${name}/main.tf`, S3_STACK);
  await tree.file('local/main.tf', 'resource "terraform_data" "y" {}\n');
  env = { PATH: process.env.PATH, HOME: tree.dir };
});
afterAll(() => tree.cleanup());

async function run(command: string[], config: Parameters<typeof configYaml>[0]) {
  const file = await tree.file('driftgate.yml', configYaml({ dataDir: join(tree.dir, 'data'), ...config }));
  return runCli([...command, '--config', file], { cwd: tree.dir, env });
}

const oneKey = {
  discover: [{ glob: 'environments/*/*', backendConfig: { bucket: 'tfstate', key: 'app/terraform.tfstate' } }],
};

describe('stacks sharing one state', () => {
  it('validate refuses a discover rule that gives every stack one key, naming the stacks, the key and the fix', async () => {
    const { code, stdout, stderr } = await run(['validate'], oneKey);
    const out = stdout + stderr;
    expect(code).toBe(1);
    expect(out).toContain('stacks "dev/vpc" (discover[0]) and "prod/dns" (discover[0]) use the same state');
    expect(out).toContain('stacks "dev/vpc" (discover[0]) and "prod/vpc" (discover[0]) use the same state');
    expect(out).toContain('s3 bucket "tfstate", key "app/terraform.tfstate"');
    expect(out).toContain('${stack.name}');
  });

  it('check, doctor and serve refuse it before any plan', async () => {
    for (const command of [['check', '--all'], ['doctor'], ['serve']]) {
      const { code, stdout, stderr } = await run(command, oneKey);
      expect(code, command.join(' ')).not.toBe(0);
      expect(stdout + stderr, command.join(' ')).toContain('and "prod/dns" (discover[0]) use the same state');
    }
  });

  it('a key per stack with ${stack.name} (or ${stack.dir}) passes, and each stack gets its own', async () => {
    const perStack = {
      discover: [
        { glob: 'environments/*/*', backendConfig: { bucket: 'tfstate', key: 'app/${stack.name}/terraform.tfstate' } },
      ],
    };
    const { code, stdout, stderr } = await run(['validate'], perStack);
    expect(stdout + stderr).not.toContain('same state');
    expect(code).toBe(0);
    const byDir = {
      discover: [{ glob: 'environments/*/*', backendConfig: { bucket: 'b', key: '${stack.dir}.tfstate' } }],
    };
    expect((await run(['validate'], byDir)).code).toBe(0);
  });

  it('two stacks on one local state (one dir, one workspace) are refused; other workspaces are not', async () => {
    const same = await run(['validate'], {
      stacks: [
        { name: 'one', dir: 'local' },
        { name: 'two', dir: 'local' },
      ],
    });
    expect(same.code).toBe(1);
    expect(same.stdout + same.stderr).toContain(
      `stacks "one" (stacks[0]) and "two" (stacks[1]) use the same state: local state file ${join(tree.dir, 'local/terraform.tfstate')}`,
    );
    const workspaces = await run(['validate'], {
      stacks: [
        { name: 'one', dir: 'local', workspace: 'blue' },
        { name: 'two', dir: 'local', workspace: 'green' },
      ],
    });
    expect(workspaces.stdout + workspaces.stderr).not.toContain('same state');
    expect(workspaces.code).toBe(0);
  });

  it('the backend block in the .tf counts, backendConfig over it as terraform init merges them', async () => {
    await tree.file('fixed/a/main.tf', 'terraform {\n  backend "s3" {\n    bucket = "b"\n    key    = "k"\n  }\n}\n');
    await tree.file('fixed/b/main.tf', 'terraform {\n  backend "s3" {\n    bucket = "b"\n    key    = "k"\n  }\n}\n');
    const written = await run(['validate'], { discover: [{ glob: 'fixed/*' }] });
    expect(written.code).toBe(1);
    expect(written.stdout + written.stderr).toContain('s3 bucket "b", key "k"');
    const overridden = await run(['validate'], {
      discover: [{ glob: 'fixed/*', backendConfig: { key: '${stack.name}' } }],
    });
    expect(overridden.code).toBe(0);
  });

  it('an unknown ${stack.…} placeholder, or one outside a stack, is a config error naming the key', async () => {
    const unknown = await run(['validate'], {
      discover: [{ glob: 'environments/*/*', backendConfig: { bucket: 'b', key: '${stack.nmae}/tfstate' } }],
    });
    expect(unknown.code).toBe(1);
    expect(unknown.stdout + unknown.stderr).toMatch(
      /discover\[0\]\.backendConfig\.key.*unknown placeholder "\$\{stack\.nmae\}"/,
    );
    const outside = await run(['validate'], { ...oneKey, dataDir: '${stack.name}' });
    expect(outside.code).toBe(1);
    expect(outside.stdout + outside.stderr).toMatch(/dataDir.*"\$\{stack\.name\}" is a stack's own value/);
    const noEnvironment = await run(['validate'], {
      stacks: [{ name: 'solo', dir: 'local', backendConfig: { path: '${stack.environment}.tfstate' } }],
    });
    expect(noEnvironment.code).toBe(1);
    expect(noEnvironment.stdout + noEnvironment.stderr).toMatch(
      /stacks\[0\]\.backendConfig.*"solo" has no value for \$\{stack\.environment\}/,
    );
  });
});
