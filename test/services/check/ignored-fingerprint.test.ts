import { afterEach, describe, expect, it } from 'vitest';
import { editResourceInput } from '../../../src/cli/commands/demo-drift.js';
import { checkStack } from '../../../src/services/check/check-stack.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import type { ConfigPatch } from '../../helpers/config-builder.js';

const STACK = `
resource "terraform_data" "vpc" {
  input = { cidr = "10.0.0.0/16" }
}
resource "terraform_data" "asg" {
  input = { desired = 2 }
}
`;

const POLICIES: ConfigPatch = {
  policies: { rules: [{ name: 'autoscaler-owns-asg', when: 'resource.name == "asg"', effect: 'ignore' }] },
};

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('ignored changes and the drift fingerprint', () => {
  it('keeps the same drift the same while a value another system owns keeps moving', async () => {
    app = await makeTestApp({ stacks: { dev: STACK }, config: POLICIES });
    const stack = app.context.stack('dev')!;
    await app.applyWithTerraform('dev');
    const tf = { binary: 'terraform', env: app.env };
    await editResourceInput(
      tf,
      stack.dir,
      { type: 'terraform_data', name: 'vpc' },
      (input) => void (input.cidr = '10.9.0.0/16'),
    );
    await editResourceInput(
      tf,
      stack.dir,
      { type: 'terraform_data', name: 'asg' },
      (input) => void (input.desired = 5),
    );
    const first = await checkStack(app.context.deps, stack, { trigger: 'schedule' });
    if (first.status !== 'drifted') throw new Error(`expected drift, got ${first.status}`);
    expect(first.isNew).toBe(true);
    expect(first.policy?.ignored.map((i) => i.address)).toContain('terraform_data.asg');

    // The autoscaler moves its count again; the real drift is unchanged.
    await editResourceInput(
      tf,
      stack.dir,
      { type: 'terraform_data', name: 'asg' },
      (input) => void (input.desired = 7),
    );
    const second = await checkStack(app.context.deps, stack, { trigger: 'schedule' });
    if (second.status !== 'drifted') throw new Error(`expected drift, got ${second.status}`);
    expect(second.isNew).toBe(false);
    expect(second.run.fingerprint).toBe(first.run.fingerprint);

    // Real drift that changes is new drift.
    await editResourceInput(
      tf,
      stack.dir,
      { type: 'terraform_data', name: 'vpc' },
      (input) => void (input.cidr = '10.8.0.0/16'),
    );
    const third = await checkStack(app.context.deps, stack, { trigger: 'schedule' });
    expect(third.status === 'drifted' && third.isNew).toBe(true);
  });
});
