/**
 * Why each resource differs, through the CLI with real terraform, a real SQLite store and real git: an
 * input changed in driftgate.yml after a driftgate apply, a state pushed outside driftgate, a change merged
 * and not applied. Each is checked in `check --json`, in the policy input (`drift.causes`, echoed by a
 * rule) and in the Slack alert rendered from what the check stored.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import { runCli } from '../helpers/cli.js';
import { approvers, configYaml, gitSource, stackEntry, type ConfigPatch } from '../helpers/config-builder.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';
import { makeTestRepo, type TestRepo } from '../adapters/git/git-repo.js';
import { stackHcl } from '../helpers/git-stack.js';
import { storedAlertText } from '../helpers/stored-alert.js';

const ALICE = 'U0ALICE01';
const OLD_TOKEN = 'tok-old-0b7d1f2e9c';
const NEW_TOKEN = 'tok-new-5a3c8e1f04';

const INPUTS = `
variable "size" {
  type = string
}
variable "token" {
  type      = string
  sensitive = true
}
resource "terraform_data" "app" {
  input = { size = var.size, token = var.token }
}
resource "terraform_data" "other" {
  input = "fixed"
}
`;
const STATE = `
resource "terraform_data" "app" {
  input = { size = "small" }
}
`;
const INHERITED = `
variable "region" {
  type = string
}
resource "terraform_data" "bucket" {
  input = { region = var.region }
}
`;
/** A root calling a local module; v1 and v2 of the module set different values. */
const moduleCall = (version: string) => `
module "net" {
  source = "./modules/${version}"
}
`;
const moduleCode = (value: string) => `
resource "terraform_data" "subnet" {
  input = "${value}"
}
`;

const POLICIES: ConfigPatch = {
  ...approvers({ ops: [ALICE] }, [{ stacks: '*', count: 1, from: ['ops'] }], { allowCli: true }),
  policies: {
    rules: [
      {
        name: 'echo-causes',
        scope: 'plan',
        when: 'size(drift.causes) > 0',
        message: '{{ drift.causes.map(c, c.resource + " " + c.kind + " " + c.variable + c.from + ">" + c.to) }}',
        effect: 'warn',
      },
    ],
  },
};

let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let file: string;
const dir = (stack: string) => join(tf.dir, stack);
const writeConfig = (size: string, token: string) =>
  writeFile(
    file,
    configYaml(
      {
        dataDir: join(tf.dir, 'data'),
        log: { level: 'silent' },
        stacks: [
          stackEntry('inputs', dir('inputs'), { vars: { size, token } }),
          stackEntry('state', dir('state')),
          stackEntry('module', dir('module')),
          stackEntry('inherited', dir('inherited')),
        ],
      },
      POLICIES,
    ),
  );
const cli = (...args: string[]) => runCli([...args, '--config', file], { cwd: tf.dir, env });

interface JsonResource {
  address: string;
  causes: { kind: string; text: string; [k: string]: unknown }[];
}
interface JsonStack {
  stack: string;
  status: string;
  runId: string;
  changes: JsonResource[];
  drift: JsonResource[];
  policy: { findings: { rule: string; message: string }[] } | null;
}
async function check(
  stack: string,
  config = file,
  extraEnv: Record<string, string> = {},
): Promise<{ code: number; report: JsonStack; stdout: string }> {
  const result = await runCli(['check', stack, '--json', '--config', config], {
    cwd: tf.dir,
    env: { ...env, ...extraEnv },
  });
  const report = (JSON.parse(result.stdout) as { stacks: JsonStack[] }).stacks[0]!;
  return { code: result.code, report, stdout: result.stdout };
}
const causesOf = (report: JsonStack, address: string) =>
  report.changes.find((c) => c.address === address)?.causes.map(({ text: _text, ...c }) => c);
const echoed = (report: JsonStack) => report.policy?.findings.find((f) => f.rule === 'echo-causes')?.message;

const alertText = (runId: string, config = file) => storedAlertText(runId, { config, cwd: tf.dir, env });

const terraform = (cwd: string, ...args: string[]) =>
  execa('terraform', [...args, '-input=false', '-no-color'], { cwd, env, extendEnv: false });
const serialOf = async (cwd: string) => {
  const { serial, lineage } = JSON.parse(
    (await execa('terraform', ['state', 'pull'], { cwd, env, extendEnv: false })).stdout,
  ) as { serial: number; lineage: string };
  return { serial, lineage };
};

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-causes-');
  env = { PATH: process.env.PATH, HOME: tf.dir, USER: 'grace', ...tf.env };
  file = join(tf.dir, 'driftgate.yml');
  for (const version of ['v1', 'v2']) {
    await mkdir(join(dir('module'), 'modules', version), { recursive: true });
    await writeFile(join(dir('module'), 'modules', version, 'main.tf'), moduleCode(`10.0.${version.slice(1)}.0/24`));
  }
  for (const [stack, hcl] of [
    ['inputs', INPUTS],
    ['state', STATE],
    ['module', moduleCall('v1')],
    ['inherited', INHERITED],
  ] as const) {
    await mkdir(dir(stack), { recursive: true });
    await writeFile(join(dir(stack), 'main.tf'), hcl);
    await terraform(dir(stack), 'init');
  }
  // Applied outside driftgate with other values than driftgate.yml's, so driftgate's first plan has changes.
  await execa(
    'terraform',
    ['apply', '-auto-approve', '-input=false', '-var', 'size=tiny', '-var', `token=${OLD_TOKEN}`],
    {
      cwd: dir('inputs'),
      env,
      extendEnv: false,
    },
  );
  await terraform(dir('state'), 'apply', '-auto-approve');
  await terraform(dir('module'), 'apply', '-auto-approve');
  await terraform(dir('inherited'), 'apply', '-auto-approve', '-var', 'region=eu-west-1');
  await writeConfig('small', OLD_TOKEN);
}, 120_000);
afterAll(() => tf.cleanup());

describe('drift causes', () => {
  it('input: a variable changed in driftgate.yml after a driftgate apply is named, its value never', async () => {
    // Nothing on record yet: unknown, and it says so.
    const first = await check('inputs');
    expect(first.code).toBe(2);
    expect(causesOf(first.report, 'terraform_data.app')).toEqual([
      {
        kind: 'unknown',
        why: 'driftgate has no apply or clean check of this stack on record to compare its providers, modules, inputs and state with',
      },
    ]);
    const applied = await cli('approve', first.report.runId, '--as', ALICE);
    expect(applied.stdout).toContain('Apply complete!');

    await writeConfig('large', NEW_TOKEN);
    const { code, report, stdout } = await check('inputs');
    expect(code).toBe(2);
    expect(report.changes.map((c) => c.address)).toEqual(['terraform_data.app']);
    // The state driftgate's own apply wrote is no cause: the apply recorded it.
    expect(causesOf(report, 'terraform_data.app')).toEqual([
      { kind: 'input', source: 'config', name: 'size', change: 'changed', since: 'apply' },
      { kind: 'input', source: 'config', name: 'token', change: 'changed', since: 'apply' },
    ]);
    expect(report.changes[0]!.causes[0]!.text).toBe('var.size changed in driftgate.yml since the last apply');
    expect(echoed(report)).toBe('["terraform_data.app input size>","terraform_data.app input token>"]');
    const alert = await alertText(report.runId);
    expect(alert).toContain('*Why*');
    expect(alert).toContain(
      'var.size changed in driftgate.yml since the last apply; var.token changed in driftgate.yml',
    );
    // A sensitive variable is named, never shown: not in the report, the alert or the recorded evidence.
    const evidence = await readFile(join(tf.dir, 'data', 'artifacts', 'runs', report.runId, 'evidence.json'), 'utf8');
    for (const text of [stdout, alert, evidence]) {
      expect(text).not.toContain(NEW_TOKEN);
      expect(text).not.toContain(OLD_TOKEN);
    }
  });

  it('state: a state pushed outside driftgate is named with its serials', async () => {
    expect((await check('state')).code).toBe(0);
    const before = await serialOf(dir('state'));
    await editResourceInput(
      { binary: 'terraform', env },
      dir('state'),
      { type: 'terraform_data', name: 'app' },
      (input) => {
        input.size = 'huge';
      },
    );
    const { code, report } = await check('state');
    expect(code).toBe(2);
    // `state push` writes it at a serial of its own above the one pushed: the backend's is the evidence.
    const to = await serialOf(dir('state'));
    expect(to.serial).toBeGreaterThan(before.serial);
    expect(causesOf(report, 'terraform_data.app')).toEqual([
      {
        kind: 'state_outside',
        from: { serial: before.serial, lineage: before.lineage },
        to: { serial: to.serial, lineage: before.lineage },
        since: 'clean_check',
      },
    ]);
    const text = `the state was written outside driftgate: serial ${before.serial} → ${to.serial}, no driftgate apply in between`;
    expect(report.changes[0]!.causes[0]!.text).toBe(text);
    expect(echoed(report)).toBe(`["terraform_data.app state_outside ${before.serial}>${to.serial}"]`);
    expect(await alertText(report.runId)).toContain(text);
    const human = await cli('check', 'state');
    expect(human.stdout).toContain(`Why:\n  terraform_data.app: ${text}`);
  });
});

describe('drift causes of a module', () => {
  it('module: a module call whose source changed since the last clean check is named with both sources', async () => {
    expect((await check('module')).code).toBe(0);
    await writeFile(join(dir('module'), 'main.tf'), moduleCall('v2'));
    const { code, report } = await check('module');
    expect(code).toBe(2);
    expect(report.changes.map((c) => c.address)).toEqual(['module.net.terraform_data.subnet']);
    expect(causesOf(report, 'module.net.terraform_data.subnet')).toEqual([
      {
        kind: 'module_version',
        module: 'net',
        from: { source: './modules/v1', version: '' },
        to: { source: './modules/v2', version: '' },
        since: 'clean_check',
      },
    ]);
    const text = report.changes[0]!.causes[0]!.text;
    expect(text).toContain('./modules/v1');
    expect(text).toContain('./modules/v2');
    expect(echoed(report)).toBe('["module.net.terraform_data.subnet module_version ./modules/v1>./modules/v2"]');
    expect(await alertText(report.runId)).toContain(text);
  });
});

describe('drift causes of an inherited variable', () => {
  it("input: a TF_VAR_* of driftgate's own environment that changed since the last clean check is named", async () => {
    expect((await check('inherited', file, { TF_VAR_region: 'eu-west-1' })).code).toBe(0);
    const { code, report } = await check('inherited', file, { TF_VAR_region: 'us-east-1' });
    expect(code).toBe(2);
    expect(causesOf(report, 'terraform_data.bucket')).toEqual([
      { kind: 'input', source: 'process_env', name: 'region', change: 'changed', since: 'clean_check' },
    ]);
    const text = "var.region changed in driftgate's own environment (TF_VAR_region) since the last clean check";
    expect(report.changes[0]!.causes[0]!.text).toBe(text);
    expect(await alertText(report.runId)).toContain(text);
  });
});

describe('drift causes of a stack from Git', () => {
  let repo: TestRepo;
  let gitFile: string;
  beforeAll(async () => {
    repo = await makeTestRepo();
    gitFile = join(tf.dir, 'driftgate-git.yml');
    await writeFile(
      gitFile,
      configYaml(
        { dataDir: join(tf.dir, 'data-git'), log: { level: 'silent' }, stacks: [stackEntry('prod/db', 'db')] },
        gitSource(repo.url),
        POLICIES,
      ),
    );
  });
  afterAll(() => repo.cleanup());

  it('merged not applied: the commit and who wrote it', async () => {
    const statePath = join(tf.dir, 'git-state', 'db.tfstate');
    const a = await repo.commit(
      { '.gitignore': '.terraform/\n', 'db/main.tf': stackHcl(statePath, 'small') },
      'Add db',
    );
    const work = join(repo.dir, 'work', 'db');
    await terraform(work, 'init');
    await terraform(work, 'apply', '-auto-approve');
    const gitCli = (...args: string[]) => runCli([...args, '--config', gitFile], { cwd: tf.dir, env });
    expect((await gitCli('baseline', 'prod/db')).code).toBe(0);
    const b = await repo.commit({ 'db/main.tf': stackHcl(statePath, 'large') }, 'Grow db (#12)', {
      name: 'Bob Builder',
      email: 'bob@example.com',
    });

    const { code, report } = await check('prod/db', gitFile);
    expect(code).toBe(2);
    expect(report.status).toBe('pending_approval');
    expect(causesOf(report, 'terraform_data.db')).toEqual([
      { kind: 'merged_not_applied', commit: b, lastApplied: a, author: 'Bob Builder' },
    ]);
    const text = `merged in ${b.slice(0, 7)} by Bob Builder, not applied`;
    expect(report.changes[0]!.causes[0]!.text).toBe(text);
    expect(echoed(report)).toBe('["terraform_data.db merged_not_applied >"]');
    expect(await alertText(report.runId, gitFile)).toContain(text);
  });
});
