import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateConfigFile } from '../../src/config/load.js';
import type { ConfigIssue } from '../../src/domain/errors.js';
import { runCli } from '../helpers/cli.js';
import { makeTempTree, type TempTree } from './temp-dir.js';

const EXAMPLES = join(import.meta.dirname, '../../examples/policies.yml');
const APPROVERS = [
  'approvers:',
  '  groups:',
  '    sre-leads: { users: [U0000001] }',
  '    senior: { users: [U0000002] }',
].join('\n');

let tree: TempTree;
beforeEach(async () => {
  tree = await makeTempTree();
});
afterEach(() => tree.cleanup());

/** The config with `version: 1` and one stack before it, unless it says otherwise. */
const complete = (config: string) =>
  `${config.includes('version:') ? '' : 'version: 1\n'}${config.includes('stacks:') ? '' : 'stacks: [{ name: app, dir: . }]\n'}${config}`;

async function validate(config: string, files: Record<string, string> = {}) {
  for (const [name, text] of Object.entries(files)) await tree.file(name, text);
  const file = await tree.file('driftgate.yml', complete(config));
  return validateConfigFile({ file, cwd: tree.dir, env: {} });
}

async function issues(config: string, files: Record<string, string> = {}): Promise<ConfigIssue[]> {
  const result = await validate(config, files);
  expect(result.config).toBeUndefined();
  return result.issues;
}

const rulesFile = (...rules: string[]) => ['rules:', ...rules.map((r) => `  - ${r}`)].join('\n');

describe('policies in the config', () => {
  it('defaults to no rules', async () => {
    const result = await validate('stacks: [{ name: app, dir: . }]\n');
    expect(result.issues).toEqual([]);
    expect(result.config?.policies).toEqual([]);
  });

  it('reads policy files relative to the config file, in order, then inline rules; scope defaults to resource', async () => {
    const result = await validate(
      [
        'policies:',
        '  files: [policies/a.yml, b.yml]',
        '  rules:',
        '    - { name: inline, when: "true", effect: warn }',
      ].join('\n'),
      {
        'policies/a.yml': rulesFile('{ name: from-a, when: "true", effect: minor }'),
        'b.yml': rulesFile(
          '{ name: from-b, scope: plan, when: "size(terraform.resource_changes) > 1", effect: deny, message: "{{ stack.name }}" }',
        ),
      },
    );
    expect(result.issues).toEqual([]);
    expect(result.config?.policies).toEqual([
      { name: 'from-a', scope: 'resource', when: 'true', effect: 'minor' },
      {
        name: 'from-b',
        scope: 'plan',
        when: 'size(terraform.resource_changes) > 1',
        effect: 'deny',
        message: '{{ stack.name }}',
      },
      { name: 'inline', scope: 'resource', when: 'true', effect: 'warn' },
    ]);
  });

  it('loads the shipped examples', async () => {
    const result = await validate(`policies:\n  files: [${EXAMPLES}]\n${APPROVERS}\n`);
    expect(result.issues).toEqual([]);
    expect(result.config?.policies.map((r) => r.name)).toContain('tag-only-changes-are-minor');
    expect(result.config?.policies).toHaveLength(8);
  });

  it.each<{ name: string; config: string; files?: Record<string, string>; expected: ConfigIssue[] }>([
    {
      name: 'a bad inline expression: path, rule name and position',
      config: [
        'policies:',
        '  rules:',
        '    - { name: ok, when: "true", effect: warn }',
        '    - { name: broken, when: "resource.type ==", effect: warn }',
      ].join('\n'),
      expected: [
        {
          path: 'policies.rules[1].when',
          message:
            'rule "broken": Unexpected token: EOF at line 1, column 17\n    resource.type ==\n                    ^',
        },
      ],
    },
    {
      name: 'a bad expression in a file names the file',
      config: 'policies:\n  files: [policies.yml]\n',
      files: {
        'policies.yml': rulesFile(
          '{ name: ok, when: "true", effect: warn }',
          '{ name: typo, when: "resouce.type == \\"x\\"", effect: warn }',
        ),
      },
      expected: [
        {
          path: 'policies.files[0] (policies.yml) rules[1].when',
          message: expect.stringMatching(/^rule "typo": Unknown variable: resouce at line 1, column 1/),
        },
      ],
    },
    {
      name: 'a bad message template',
      config:
        'policies:\n  rules:\n    - { name: m, when: "true", effect: warn, message: "on {{ resource.address ) }}" }\n',
      expected: [
        {
          path: 'policies.rules[0].message',
          message: expect.stringMatching(/^rule "m": Unexpected character: '\)' at line 1, column 24/),
        },
      ],
    },
    {
      name: 'a missing policy file',
      config: 'policies:\n  files: [missing.yml]\n',
      expected: [{ path: 'policies.files[0] (missing.yml)', message: 'policy file does not exist' }],
    },
    {
      name: 'a policy file that is not YAML',
      config: 'policies:\n  files: [bad.yml]\n',
      files: { 'bad.yml': 'rules:\n  - { name: x\n' },
      expected: [
        {
          path: 'policies.files[0] (bad.yml)',
          message: expect.stringMatching(/^YAML syntax error at line \d+, column \d+/),
        },
      ],
    },
    {
      name: 'a policy file without rules',
      config: 'policies:\n  files: [empty.yml]\n',
      files: { 'empty.yml': '' },
      expected: [{ path: 'policies.files[0] (empty.yml) rules', message: 'required' }],
    },
    {
      name: 'a policy file rule with a typo and a bad effect',
      config: 'policies:\n  files: [typo.yml]\n',
      files: { 'typo.yml': rulesFile('{ name: x, wen: "true", effect: deni }') },
      expected: [
        { path: 'policies.files[0] (typo.yml) rules[0].when', message: 'required' },
        {
          path: 'policies.files[0] (typo.yml) rules[0].effect',
          message: expect.stringMatching(/^must be one of .*did you mean "deny"\?$/),
        },
        { path: 'policies.files[0] (typo.yml) rules[0]', message: 'unknown key "wen"; did you mean "when"?' },
      ],
    },
    {
      name: 'a duplicate rule name across a file and the inline rules',
      config: 'policies:\n  files: [a.yml]\n  rules:\n    - { name: same, when: "true", effect: warn }\n',
      files: { 'a.yml': rulesFile('{ name: same, when: "true", effect: warn }') },
      expected: [
        {
          path: 'policies.rules[0].name',
          message:
            'rule "same": duplicate rule name: rule names must be unique (also policies.files[0] (a.yml) rules[0])',
        },
      ],
    },
    {
      name: 'require_approval without from, and from an unknown group',
      config: [
        'policies:',
        '  rules:',
        '    - { name: a, when: "true", effect: require_approval, count: 1 }',
        '    - { name: b, when: "true", effect: require_approval, count: 1, from: [sre-leads, nobody] }',
        APPROVERS,
      ].join('\n'),
      expected: [
        {
          path: 'policies.rules[0].from',
          message: 'rule "a": require_approval needs `from`, the approver groups to approve',
        },
        { path: 'policies.rules[1].from[1]', message: 'rule "b": unknown approver group "nobody"' },
      ],
    },
    {
      name: 'require_approval without an approvers section',
      config:
        'policies:\n  rules:\n    - { name: a, when: "true", effect: require_approval, count: 1, from: [leads] }\n',
      expected: [
        {
          path: 'policies.rules[0].from[0]',
          message: 'rule "a": unknown approver group "leads" (there is no approvers section)',
        },
      ],
    },
    {
      name: 'the section itself is strict',
      config: 'policies:\n  rulez: []\n',
      expected: [{ path: 'policies', message: 'unknown key "rulez"; did you mean "rules"?' }],
    },
  ])('$name', async ({ config, files, expected }) => {
    expect(await issues(config, files)).toEqual(expected);
  });
});

describe('driftgate validate with policies', () => {
  it('prints a bad expression with its path, rule name and position, and exits 1', async () => {
    await tree.file(
      'policies.yml',
      rulesFile('{ name: expensive, when: "resource.after.instance_type.matches(", effect: deny }'),
    );
    const file = await tree.file('driftgate.yml', complete('policies:\n  files: [policies.yml]\n'));
    const result = await runCli(['validate', '--config', file], {
      cwd: tree.dir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'error: policies.files[0] (policies.yml) rules[0].when: rule "expensive": Unexpected token: EOF at line 1, column 38',
    );
    expect(result.stderr).toContain('1 error');
  });
});
