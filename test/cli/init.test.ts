import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

const EXAMPLES = join(import.meta.dirname, '../../examples');

let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-init-');
  env = { PATH: process.env.PATH, HOME: process.env.HOME, ...tf.env };
});
afterAll(() => tf.cleanup());

async function files(root: string, tree: Record<string, string>): Promise<string> {
  for (const [path, text] of Object.entries(tree)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

const firstLine = (text: string) => text.split('\n', 1)[0];

/** `init` in `dir`, then `validate` of what it wrote: both must pass. */
async function initAndValidate(dir: string) {
  const init = await runCli(['init', dir], { cwd: tf.dir, env });
  const file = join(dir, 'driftgate.yml');
  const validate = await runCli(['validate', '--config', file], { cwd: dir, env });
  return { init, validate, file, yaml: await readFile(file, 'utf8').catch(() => '') };
}

describe('driftgate init', () => {
  it('finds environments/<env>/<layer> in the bundled examples', async () => {
    const dir = join(tf.dir, 'examples');
    await cp(EXAMPLES, dir, { recursive: true });
    await rm(join(dir, 'driftgate.yml'));
    const { init, validate, file, yaml } = await initAndValidate(dir);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(firstLine(init.stdout)).toBe(`wrote ${file}: 9 stacks (environments/<env>/<layer>)`);
    expect(init.stdout).toContain('environments: dev, prod, staging\n');
    expect(init.stdout).toContain('warning: approvers.groups.platform: has no users and no usergroups');
    expect(init.stdout).toContain('  discover "environments/*/*": vars db_password\n');
    expect(yaml).toContain('  - glob: "environments/*/*"\n');
    expect(yaml).toContain('    #   db_password: ${DB_PASSWORD}\n');
    expect(yaml).toContain('    - environments: ["prod"]\n      count: 2');
    expect(init.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^Then: .*driftgate(\.js)? doctor --config examples\/driftgate\.yml$/,
    );
    expect(validate.stdout).toBe(
      `warning: approvers.groups.platform: has no users and no usergroups: it grants nobody\n${file}: ok, 9 stacks, 1 warning\n`,
    );
    expect(validate.code).toBe(0);
    // The first hour's last step, as the README has it: doctor, in the dir, on the file init wrote.
    const doctor = await runCli(['doctor'], { cwd: dir, env });
    expect(firstLine(doctor.stdout)).toBe(`ok   config: ${file}: 9 stacks, 1 warning (see driftgate validate)`);
    // init listed db_password as one to fill in; doctor says so rather than "all good" before a failing check.
    const failed = doctor.stdout.split('\n').filter((l) => l.startsWith('FAIL'));
    expect(failed.map((l) => l.split(':')[0])).toEqual([
      'FAIL stack dev/database',
      'FAIL stack prod/database',
      'FAIL stack staging/database',
    ]);
    expect(failed[0]).toContain('no value for the variable "db_password" (main.tf:7)');
    expect(failed[0]).toContain('add it under discover[0].vars in driftgate.yml');
    expect(doctor.code).not.toBe(0);
    // Filled in as init suggests, doctor is all good.
    await writeFile(file, yaml.replace('    # vars:\n    #   db_password:', '    vars:\n      db_password:'));
    const filled = await runCli(['doctor'], { cwd: dir, env: { ...env, DB_PASSWORD: 'not-a-secret' } });
    expect(filled.stdout).not.toContain('FAIL');
    expect(filled.stdout.trimEnd().split('\n').at(-1)).toBe('all good: 14 ok, 4 skipped');
    expect(filled.code).toBe(0);
  });

  it('finds live/<account>/<region>/<layer> in a monorepo, leaving out modules and keeping partial backends', async () => {
    const stack = (name: string) =>
      `terraform {\n  backend "s3" {}\n}\n\nmodule "${name}" {\n  source = "../../../../modules/${name}"\n}\n`;
    const dir = await files(join(tf.dir, 'monorepo'), {
      'live/acme-prod/us-east-1/vpc/main.tf': stack('vpc'),
      'live/acme-prod/us-east-1/eks/main.tf': stack('eks'),
      'live/acme-prod/global/iam/main.tf': stack('iam'),
      'live/acme-dev/eu-west-1/vpc/main.tf': stack('vpc'),
      'modules/vpc/main.tf': 'variable "cidr" {\n  type = string\n}\n',
      'modules/eks/main.tf': 'resource "terraform_data" "cluster" {}\n',
      'modules/iam/main.tf': 'resource "terraform_data" "role" {}\n',
      'README.md': '# infra\n',
    });
    const { init, validate, file, yaml } = await initAndValidate(dir);
    expect(init.code).toBe(0);
    expect(firstLine(init.stdout)).toBe(`wrote ${file}: 4 stacks (live/<account>/<region>/<layer>)`);
    expect(init.stdout).toContain('environments: acme-dev, acme-prod\n');
    expect(init.stdout).toContain('note: 3 module dirs left out (called by a stack or under modules/)\n');
    expect(init.stdout).toContain(
      '  discover "live/*/*/*": backendConfig for backend "s3" {}, with a state key per stack (${stack.name})\n',
    );
    expect(yaml).toContain('  - glob: "live/*/*/*"\n');
    expect(yaml).toContain('    #   bucket: …\n');
    expect(yaml).toContain('    #   key: "monorepo/${stack.name}/terraform.tfstate"\n');
    expect(yaml).toContain('    - environments: ["acme-prod"]\n');
    expect(validate.stdout).toContain(`${file}: ok, 4 stacks, 1 warning`);
    expect(validate.code).toBe(0);
    // Filled in as written, each stack has its own state; one key for all is refused.
    const filled = yaml
      .replace('    # backendConfig:', '    backendConfig:')
      .replace('    #   bucket: …', '      bucket: acme-tfstate')
      .replace('    #   key:', '      key:')
      .replace('    #   region: …', '      region: eu-west-1');
    await writeFile(file, filled);
    expect((await runCli(['validate', '--config', file], { cwd: dir, env })).code).toBe(0);
    await writeFile(file, filled.replace('monorepo/${stack.name}/terraform.tfstate', 'terraform.tfstate'));
    const shared = await runCli(['validate', '--config', file], { cwd: dir, env });
    expect(shared.stderr).toContain('use the same state: s3 bucket "acme-tfstate", key "terraform.tfstate"');
    expect(shared.code).toBe(1);
  });

  it('finds a flat stacks/<name> layout and names each workspace of a dir as a stack', async () => {
    const dir = await files(join(tf.dir, 'flat'), {
      'stacks/network/main.tf': 'resource "terraform_data" "vpc" {}\n',
      'stacks/dns/main.tf': 'resource "terraform_data" "zone" {}\n',
      'stacks/billing-alerts/main.tf': 'resource "terraform_data" "alarm" {}\n',
      'stacks/app/main.tf': 'variable "size" {\n  type = number\n}\n',
      'stacks/app/prod.tfvars': 'size = 3\n',
      'stacks/app/staging.tfvars': 'size = 1\n',
      'stacks/app/terraform.tfstate.d/prod/terraform.tfstate': '{}\n',
      'stacks/app/terraform.tfstate.d/staging/terraform.tfstate': '{}\n',
    });
    const { init, validate, file, yaml } = await initAndValidate(dir);
    expect(init.code).toBe(0);
    expect(firstLine(init.stdout)).toBe(`wrote ${file}: 5 stacks (stacks/<stack>; 2 named one by one)`);
    expect(init.stdout).toContain('environments: prod, staging\n');
    expect(yaml).toContain('  - glob: "stacks/*"\n    exclude: ["stacks/app"]');
    expect(yaml).toContain(
      '  - name: "prod/app"\n    dir: "stacks/app"\n    workspace: "prod"\n    environment: "prod"\n    varFiles: ["prod.tfvars"]\n',
    );
    expect(validate.stdout).toContain(`${file}: ok, 5 stacks, 1 warning`);
    expect(validate.code).toBe(0);
  });

  it('keeps an existing driftgate.yml unless --force', async () => {
    const dir = await files(join(tf.dir, 'existing'), {
      'driftgate.yml': '# mine\n',
      'prod/app/main.tf': 'resource "terraform_data" "x" {}\n',
    });
    const file = join(dir, 'driftgate.yml');
    const refused = await runCli(['init', dir], { cwd: tf.dir, env });
    expect(refused.code).toBe(1);
    expect(firstLine(refused.stderr)).toBe(`driftgate init: ${file} already exists; pass --force to overwrite it`);
    expect(await readFile(file, 'utf8')).toBe('# mine\n');
    const forced = await runCli(['init', '--force'], { cwd: dir, env });
    expect(forced.code).toBe(0);
    expect(firstLine(forced.stdout)).toBe(`wrote ${file}: 1 stack (<env>/<layer>)`);
    expect(await readFile(file, 'utf8')).toContain('  - glob: "@(prod)/*"\n');
  });

  it('says so when no directory holds *.tf files', async () => {
    const dir = await files(join(tf.dir, 'empty'), { 'README.md': '# nothing\n' });
    const result = await runCli(['init', dir], { cwd: tf.dir, env });
    expect(result.code).toBe(1);
    expect(firstLine(result.stderr)).toBe(
      `driftgate init: no directory in ${dir} holds *.tf files; run it in the repository of your Terraform stacks`,
    );
  });

  it('keeps the data dir out of Git: adds .driftgate/ to .gitignore once, and says why', async () => {
    const dir = await files(join(tf.dir, 'ignore'), { 'prod/app/main.tf': 'resource "terraform_data" "x" {}\n' });
    const gitignore = join(dir, '.gitignore');
    const first = await runCli(['init', dir], { cwd: tf.dir, env });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      `wrote .driftgate/ to ${gitignore}: the data dir holds saved plans, with secrets in clear\n`,
    );
    expect(await readFile(gitignore, 'utf8')).toBe(
      "# driftgate's data dir: its store and saved plans (secrets in clear)\n.driftgate/\n",
    );
    const again = await runCli(['init', dir, '--force'], { cwd: tf.dir, env });
    expect(again.stdout).toContain(`${gitignore} already ignores .driftgate/`);
    expect((await readFile(gitignore, 'utf8')).match(/^\.driftgate\/$/gm)).toHaveLength(1);

    // A .gitignore of the user's own, without a last newline: kept as it is, the entry on a line of its own.
    await writeFile(gitignore, 'node_modules/\n*.tfstate');
    const added = await runCli(['init', dir, '--force'], { cwd: tf.dir, env });
    expect(added.stdout).toContain(`added .driftgate/ to ${gitignore}`);
    expect(await readFile(gitignore, 'utf8')).toMatch(/^node_modules\/\n\*\.tfstate\n#[^\n]*\n\.driftgate\/\n$/);
  });

  it('writes no dataDir, so that $DRIFTGATE_DATA_DIR can place it, and the on-call group as its S… id', async () => {
    const dir = await files(join(tf.dir, 'placeholders'), { 'prod/app/main.tf': 'resource "terraform_data" "x" {}\n' });
    const { init, validate, yaml } = await initAndValidate(dir);
    expect(init.code).toBe(0);
    expect(yaml).not.toMatch(/^dataDir:/m);
    expect(yaml).toContain('# dataDir: .driftgate\n');
    expect(yaml).toMatch(/^#\s+usergroup: S0123456789 .*id \(S…/m);
    expect(yaml).not.toContain('"@oncall"');
    expect(validate.code).toBe(0);
  });
});
