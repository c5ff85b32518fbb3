/**
 * Drift that refresh cannot see (terraform_data, a state edited or a resource removed from it): the
 * codify planner reads the plan's changes as drift from the code to the state, with real terraform.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { expect, it } from 'vitest';
import { editResourceInput, forgetResource } from '../../../src/cli/commands/demo-drift.js';
import { collectSecrets, createRedactor, parsePlanJson } from '../../../src/domain/plan/index.js';
import { planRemediation } from '../../../src/domain/remediation/plan-remediation.js';
import { stackConfig } from '../../helpers/stack-config.js';
import { testRunner, useTerraformTestDirs, writeFiles } from '../../adapters/terraform/fixtures.js';

const dirs = useTerraformTestDirs('driftgate-state-edit-');

const MAIN_TF = `# The database; its size is edited by hand sometimes.
resource "terraform_data" "db" {
  input = {
    size = "small" # the default
    tier = "gold"
  }
}

resource "terraform_data" "cache" {
  input = "redis"
}

resource "terraform_data" "queue" {
  input = local.queue
}

locals {
  queue = "sqs"
}
`;

it('codifies state edits of literals, lists expressions and resources missing from the state for a person, and the next plan only creates what was forgotten', async () => {
  const dir = join(dirs.tmp, 'stack');
  await writeFiles(dir, { 'main.tf': MAIN_TF });
  const stack = stackConfig('state-edit', dir);
  const { runner } = testRunner(dirs.tfEnv, dirs.tmp);
  const planFile = join(dirs.tmp, 'drift.tfplan');
  await runner.apply(stack, (await runner.plan(stack, planFile)).planFile);

  const tf = { binary: 'terraform', env: { PATH: process.env.PATH!, ...dirs.tfEnv } };
  await editResourceInput(tf, dir, { type: 'terraform_data', name: 'db' }, (input) => {
    input.size = 'huge';
  });
  // queue's input is a string, not an object editResourceInput can change in place.
  const pulled = JSON.parse((await execa('terraform', ['state', 'pull'], { cwd: dir, env: tf.env })).stdout) as {
    serial: number;
    resources: { name: string; instances: { attributes: Record<string, unknown> }[] }[];
  };
  const queue = pulled.resources.find((r) => r.name === 'queue')!.instances[0]!.attributes;
  queue.input = { value: 'kafka', type: 'string' };
  queue.output = { value: 'kafka', type: 'string' };
  pulled.serial += 1;
  await execa('terraform', ['state', 'push', '-'], { cwd: dir, env: tf.env, input: JSON.stringify(pulled) });
  await forgetResource(tf, dir, 'terraform_data.cache');

  expect(await runner.plan(stack, planFile)).toMatchObject({ hasChanges: true });
  const plan = parsePlanJson(await runner.showJson(stack, planFile));
  expect(plan.resource_drift ?? []).toEqual([]);
  const result = planRemediation(plan, [{ path: 'main.tf', text: MAIN_TF }], {
    redactor: createRedactor(collectSecrets(plan)),
  });

  expect(result.edits.map((e) => [e.address, e.path, e.value, e.before])).toEqual([
    ['terraform_data.db', ['input', 'size'], 'huge', 'small'],
  ]);
  expect(result.skipped.map((s) => [s.address, s.code])).toEqual(
    expect.arrayContaining([
      ['terraform_data.cache', 'missing-from-state'],
      ['terraform_data.queue', 'reference'],
    ]),
  );
  expect(result.skipped).toHaveLength(2);
  expect(result.skipped.find((s) => s.code === 'missing-from-state')!.guidance).toContain('terraform import');
  expect(result.skipped.find((s) => s.code === 'reference')!.guidance).toContain('"kafka"');
  const text = result.files[0]!.text;
  expect(text).toContain('    size = "huge" # the default\n');
  expect(text).toContain('# The database; its size is edited by hand sometimes.');

  await writeFile(join(dir, 'main.tf'), text);
  expect(await runner.fmtCheck(stack, ['main.tf'])).toEqual({ unformatted: [], diff: '' });
  await runner.validate(stack);
  expect(await runner.plan(stack, planFile)).toMatchObject({ hasChanges: true });
  const next = parsePlanJson(await runner.showJson(stack, planFile));
  const changed = (next.resource_changes ?? [])
    .filter((rc) => !rc.change.actions.includes('no-op'))
    .map((rc) => [rc.address, rc.change.actions]);
  // The db matches now; the cache is created again and the queue waits for its local.
  expect(changed).toEqual([
    ['terraform_data.cache', ['create']],
    ['terraform_data.queue', ['update']],
  ]);
  expect(await readFile(join(dir, 'main.tf'), 'utf8')).toBe(text);
});
