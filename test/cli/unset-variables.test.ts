import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { configYaml } from '../helpers/config-builder.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

/** doctor used to say "all good" here, and the next check failed with terraform's advice to pass -var. */
const STACK = `
resource "terraform_data" "db" {
  input = { size = var.size }
}
`;
const VARIABLES = `# inputs

variable "size" {
  type = number
}

variable "region" {
  type    = string
  default = "eu-west-1"
}
`;

let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let repo: string;

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-unset-vars-');
  repo = join(tf.dir, 'repo');
  await mkdir(join(repo, 'prod/db'), { recursive: true });
  await writeFile(join(repo, 'prod/db/main.tf'), STACK);
  await writeFile(join(repo, 'prod/db/variables.tf'), VARIABLES);
  env = { PATH: process.env.PATH, HOME: tf.dir, ...tf.env };
});
afterAll(() => tf.cleanup());

async function withConfig(rule: Record<string, unknown>): Promise<void> {
  const discover = [{ glob: '*/*', emptyState: 'plan' as const, ...rule }];
  await writeFile(join(repo, 'driftgate.yml'), configYaml({ dataDir: join(tf.dir, 'data'), discover }));
}

describe('required variables without a value', () => {
  it('doctor names the stack, the variable and where it is declared, and says to use vars: in driftgate.yml', async () => {
    await withConfig({});
    const doctor = await runCli(['doctor'], { cwd: repo, env });
    const line = doctor.stdout.split('\n').find((l) => l.includes('stack prod/db')) ?? '';
    expect(line).toMatch(/FAIL/);
    expect(line).toContain('no value for the variable "size" (variables.tf:3)');
    expect(doctor.stdout).toContain('add it under discover[0].vars in driftgate.yml, e.g. vars: { size: "${SIZE}" }');
    expect(doctor.stdout).not.toContain('"region"');
    expect(doctor.code).not.toBe(0);

    // Given by the environment terraform inherits, or by vars: all good.
    const fromEnv = await runCli(['doctor'], { cwd: repo, env: { ...env, TF_VAR_size: '3' } });
    expect(fromEnv.stdout).toMatch(/ok\s+stack prod\/db/);
    await withConfig({ vars: { size: 3 } });
    const fromVars = await runCli(['doctor'], { cwd: repo, env });
    expect(fromVars.stdout).toMatch(/ok\s+stack prod\/db/);
  });

  it("check's error says to use vars: in driftgate.yml instead of terraform's -var", async () => {
    await withConfig({});
    const check = await runCli(['check', 'prod/db', '--json'], { cwd: repo, env });
    expect(check.code).toBe(1);
    const [stack] = JSON.parse(check.stdout).stacks;
    expect(stack.error).toContain('No value for required variable');
    expect(stack.error).toContain(
      'driftgate passes variables from driftgate.yml, not -var: give "size" a value under the stack\'s (or its discover rule\'s) vars: in driftgate.yml',
    );
  });
});
