import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { staticPrefix } from '../../src/config/discover.js';
import { validateConfigFile, type ConfigValidation } from '../../src/config/load.js';
import { makeTempTree, type TempTree } from './temp-dir.js';

let tree: TempTree;
beforeEach(async () => {
  tree = await makeTempTree('driftgate-discover-');
  for (const env of ['dev', 'prod']) {
    for (const stack of ['networking', 'database']) await tree.file(`environments/${env}/${stack}/main.tf`, '');
  }
  await tree.file('environments/prod/docs/README.md', 'no terraform here');
  await tree.file('environments/prod/networking/.terraform/modules/main.tf', '');
  await tree.file('environments/.hidden/stack/main.tf', '');
  await tree.file('environments/prod/legacy/main.tf.json', '{}');
});
afterEach(() => tree.cleanup());

async function validate(yaml: string): Promise<ConfigValidation> {
  await tree.file('driftgate.yml', yaml);
  return validateConfigFile({ cwd: tree.dir, env: {} });
}

const names = (result: ConfigValidation) => result.config?.stacks.map((s) => s.name);

describe('stack discovery', () => {
  it('finds dirs holding *.tf, names them by the path after the static prefix, skips hidden and .terraform', async () => {
    const result = await validate('version: 1\ndiscover:\n  - glob: "environments/*/*"\n');
    expect(result.issues).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(names(result)).toEqual([
      'dev/database',
      'dev/networking',
      'prod/database',
      'prod/legacy',
      'prod/networking',
    ]);
    const net = result.config!.stacks.find((s) => s.name === 'prod/networking')!;
    expect(net).toMatchObject({
      dir: join(tree.dir, 'environments/prod/networking'),
      environment: 'prod',
      schedule: '0 * * * *',
      mode: 'alert',
    });
  });

  it('does not descend into .terraform or hidden dirs with a recursive glob', async () => {
    const result = await validate('version: 1\ndiscover:\n  - glob: "environments/**"\n');
    expect(names(result)).toEqual([
      'dev/database',
      'dev/networking',
      'prod/database',
      'prod/legacy',
      'prod/networking',
    ]);
  });

  it('applies exclude (and everything under it), namePrefix and the rule settings', async () => {
    const result = await validate(
      [
        'version: 1\ndefaults: { mode: auto-minor }',
        'discover:',
        '  - glob: "environments/*/*"',
        '    exclude: ["environments/dev", "environments/*/legacy"]',
        '    namePrefix: "aws/"',
        '    schedule: "*/15 * * * *"',
        '    labels: [discovered]',
        '    varFiles: [common.tfvars]',
        '    pool: prod',
      ].join('\n'),
    );
    expect(result.issues).toEqual([]);
    expect(names(result)).toEqual(['aws/prod/database', 'aws/prod/networking']);
    expect(result.config!.stacks[0]).toEqual({
      name: 'aws/prod/database',
      configKey: 'discover[0]',
      dir: join(tree.dir, 'environments/prod/database'),
      schedule: '*/15 * * * *',
      vars: {},
      varFiles: [join(tree.dir, 'environments/prod/database/common.tfvars')],
      env: {},
      backendConfig: {},
      environment: 'prod',
      labels: ['discovered'],
      mode: 'auto-minor',
      pool: 'prod',
    });
  });

  it('lets an explicit stack win over a discovered one with the same name; explicit stacks come first', async () => {
    const result = await validate(
      [
        'version: 1\nstacks:',
        '  - { name: prod/database, dir: environments/prod/database, mode: auto-apply, environment: production }',
        'discover:',
        '  - { glob: "environments/*/*", exclude: [environments/dev, environments/prod/legacy] }',
        '  - { glob: "environments/dev/*", namePrefix: "dev-" }',
      ].join('\n'),
    );
    expect(result.issues).toEqual([]);
    expect(result.config!.stacks.map((s) => [s.name, s.mode, s.environment])).toEqual([
      ['prod/database', 'auto-apply', 'production'],
      // Names of one segment (static prefix environments/dev) get no default environment.
      ['dev-database', 'alert', undefined],
      ['dev-networking', 'alert', undefined],
      ['prod/networking', 'alert', 'prod'],
    ]);
    expect(result.config!.stacks.filter((s) => s.dir.endsWith('prod/database'))).toHaveLength(1);
  });

  it('warns, without failing, when a glob matches nothing beside stacks found', async () => {
    const result = await validate('version: 1\ndiscover:\n  - glob: "environments/dev/*"\n  - glob: "stacks/*"\n');
    expect(result.issues).toEqual([]);
    expect(result.config!.stacks.length).toBeGreaterThan(0);
    expect(result.warnings).toEqual([
      { path: 'discover[1].glob', message: '"stacks/*" matched no directory holding *.tf files' },
    ]);
  });

  it('is an error naming each glob when nothing at all is found: no "ok, 0 stacks"', async () => {
    const result = await validate('version: 1\ndiscover:\n  - glob: "stacks/*"\n  - glob: "environments/prod/docs"\n');
    expect(result.config).toBeUndefined();
    const nothing = `(relative to ${tree.dir}), and no stack is listed under "stacks:": nothing to check`;
    expect(result.issues).toEqual([
      { path: 'discover[0].glob', message: `"stacks/*" matched no directory holding *.tf files ${nothing}` },
      {
        path: 'discover[1].glob',
        message: `"environments/prod/docs" matched no directory holding *.tf files ${nothing}`,
      },
    ]);
    expect(result.warnings).toEqual([]);
  });

  it('is an error when two rules find the same stack name', async () => {
    const result = await validate(
      'version: 1\ndiscover:\n  - glob: "environments/dev/*"\n  - glob: "environments/prod/*"\n',
    );
    expect(result.config).toBeUndefined();
    expect(result.issues).toEqual([
      {
        path: 'discover[1]',
        message: `stack name "database" (${join(tree.dir, 'environments/prod/database')}) was already found by discover[0] (${join(tree.dir, 'environments/dev/database')}); use namePrefix or exclude to tell them apart`,
      },
      expect.objectContaining({ path: 'discover[1]', message: expect.stringContaining('stack name "networking"') }),
    ]);
  });

  it('is an error when a discovered dir cannot be a stack name', async () => {
    await tree.file('environments/prod/bad name/main.tf', '');
    const result = await validate('version: 1\ndiscover:\n  - glob: "environments/prod/*"\n');
    expect(result.issues).toEqual([
      {
        path: 'discover[0]',
        message:
          'directory environments/prod/bad name gives the stack name "bad name", which is not valid (letters, digits, ".", "_", "-" and "/"); rename it or exclude it',
      },
    ]);
  });
});

describe('staticPrefix', () => {
  it.each([
    ['environments/*/*', 'environments'],
    ['./environments/*/*', 'environments'],
    ['a/b/{c,d}/*', 'a/b'],
    ['**', ''],
    ['stacks/prod', 'stacks'],
    ['stacks/prod/', 'stacks'],
  ])('%s -> %s', (glob, prefix) => {
    expect(staticPrefix(glob)).toBe(prefix);
  });
});

describe('per-stack placeholders', () => {
  it('fills ${stack.name}, ${stack.dir} and ${stack.environment} in each discovered stack, beside ${ENV}', async () => {
    await tree.file(
      'driftgate.yml',
      [
        'version: 1',
        'discover:',
        '  - glob: "environments/*/*"',
        '    backendConfig: { bucket: "${BUCKET}", key: "infra/${stack.name}/terraform.tfstate" }',
        '    vars: { tags: { dir: "${stack.dir}", env: "${stack.environment}" } }',
        '',
      ].join('\n'),
    );
    const result = await validateConfigFile({ cwd: tree.dir, env: { BUCKET: 'tfstate' } });
    expect(result.issues).toEqual([]);
    const net = result.config!.stacks.find((s) => s.name === 'prod/networking')!;
    expect(net.backendConfig).toEqual({ bucket: 'tfstate', key: 'infra/prod/networking/terraform.tfstate' });
    expect(net.vars).toEqual({ tags: { dir: 'environments/prod/networking', env: 'prod' } });
  });
});
