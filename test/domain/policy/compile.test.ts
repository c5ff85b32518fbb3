import { describe, expect, it } from 'vitest';
import { compilePolicies } from '../../../src/domain/policy/compile.js';
import type { PolicyCompileIssue, PolicyRule } from '../../../src/domain/policy/model.js';

const rule = (extra: Partial<PolicyRule>): PolicyRule => ({
  name: 'r',
  scope: 'resource',
  when: 'true',
  effect: 'warn',
  ...extra,
});

function issuesOf(rules: PolicyRule[]): PolicyCompileIssue[] {
  const result = compilePolicies(rules);
  if (result.ok) throw new Error('expected compile issues');
  return result.issues;
}

interface Case {
  name: string;
  rules: PolicyRule[];
  issues: Partial<PolicyCompileIssue>[];
}

const CASES: Case[] = [
  {
    name: 'a syntax error names the line and column, with a caret',
    rules: [rule({ name: 'broken', when: 'resource.type ==' })],
    issues: [
      {
        rule: 'broken',
        index: 0,
        field: 'when',
        message: 'Unexpected token: EOF at line 1, column 17\n    resource.type ==\n                    ^',
      },
    ],
  },
  {
    name: 'a multi-line expression: the line of the error',
    rules: [rule({ name: 'multi', when: 'resource.type == "a"\n&& resource.name ==\n)' })],
    issues: [{ rule: 'multi', field: 'when', message: 'Unexpected token: RPAREN at line 3, column 1\n    )\n    ^' }],
  },
  {
    name: 'an unknown variable (a typo) fails at compile time',
    rules: [rule({ name: 'typo', when: 'resouce.type == "aws_instance"' })],
    issues: [
      { rule: 'typo', field: 'when', message: expect.stringMatching(/^Unknown variable: resouce at line 1, column 1/) },
    ],
  },
  {
    name: 'a plan rule has no `resource`',
    rules: [rule({ name: 'plan', scope: 'plan', when: 'resource.type == "x"' })],
    issues: [{ rule: 'plan', field: 'when', message: expect.stringMatching(/^Unknown variable: resource/) }],
  },
  {
    name: 'an unknown function',
    rules: [rule({ name: 'fn', when: 'resource.type.beginsWith("aws_")' })],
    issues: [
      {
        rule: 'fn',
        field: 'when',
        message: expect.stringMatching(/no matching overload .*beginsWith.* at line 1, column 1/),
      },
    ],
  },
  {
    name: '`when` must give a bool',
    rules: [rule({ name: 'str', when: '"yes"' })],
    issues: [
      {
        rule: 'str',
        field: 'when',
        message: expect.stringMatching(/^must give a bool, gives string at line 1, column 1/),
      },
    ],
  },
  {
    name: 'a message part: the position is in the message as written',
    rules: [rule({ name: 'msg', message: 'x {{ resource.address ) }} y' })],
    issues: [
      {
        rule: 'msg',
        field: 'message',
        message: expect.stringMatching(
          /^Unexpected character: '\)' at line 1, column 23\n {4}x \{\{ resource\.address \) \}\} y\n {26}\^$/,
        ),
      },
    ],
  },
  {
    name: 'an unclosed and an empty message part',
    rules: [rule({ name: 'msg', message: '{{ }} and {{ resource.address' })],
    issues: [
      { field: 'message', message: expect.stringMatching(/^empty "\{\{ \}\}" at line 1, column 1/) },
      { field: 'message', message: expect.stringMatching(/^"\{\{" is not closed by "\}\}" at line 1, column 11/) },
    ],
  },
  {
    name: 'rule names are unique',
    rules: [rule({ name: 'same' }), rule({ name: 'other' }), rule({ name: 'same' })],
    issues: [{ rule: 'same', index: 2, field: 'name', message: 'duplicate rule name: rule names must be unique' }],
  },
  {
    name: 'require_approval needs count and from',
    rules: [
      rule({ name: 'ra', effect: 'require_approval' }),
      rule({ name: 'zero', effect: 'require_approval', count: 0, from: [] }),
    ],
    issues: [
      { rule: 'ra', field: 'count' },
      { rule: 'ra', field: 'from' },
      { rule: 'zero', field: 'count' },
      { rule: 'zero', field: 'from' },
    ],
  },
  {
    name: 'count and from belong to require_approval only',
    rules: [rule({ name: 'w', count: 2, from: ['x'] })],
    issues: [
      { rule: 'w', field: 'count', message: '`count` is for require_approval, not warn' },
      { rule: 'w', field: 'from', message: '`from` is for require_approval, not warn' },
    ],
  },
  {
    name: 'minor and ignore are per resource',
    rules: [rule({ name: 'm', scope: 'plan', effect: 'minor' }), rule({ name: 'i', scope: 'plan', effect: 'ignore' })],
    issues: [
      { rule: 'm', field: 'scope' },
      { rule: 'i', field: 'scope' },
    ],
  },
];

describe('compilePolicies', () => {
  it.each(CASES)('$name', ({ rules, issues }) => {
    const found = issuesOf(rules);
    expect(found).toHaveLength(issues.length);
    found.forEach((issue, i) => {
      expect(issue).toMatchObject(issues[i]!);
    });
  });

  it('reports every problem of every rule at once', () => {
    const found = issuesOf([
      rule({ name: 'a', when: '(' }),
      rule({ name: 'b' }),
      rule({ name: 'c', when: ')', message: '{{ ( }}' }),
    ]);
    expect(found.map((i) => `${i.index}:${i.rule}.${i.field}`)).toEqual(['0:a.when', '2:c.when', '2:c.message']);
  });

  it('compiles good rules in order, messages included', () => {
    const result = compilePolicies([
      rule({ name: 'a', when: '"delete" in resource.actions', message: '{{ resource.address }} goes' }),
      rule({
        name: 'b',
        scope: 'plan',
        when: 'size(terraform.resource_changes) > 5',
        effect: 'require_approval',
        count: 2,
        from: ['x'],
      }),
    ]);
    expect(result.ok && result.policy.rules.map((r) => [r.index, r.rule.name])).toEqual([
      [0, 'a'],
      [1, 'b'],
    ]);
  });

  it('a description is shown as written, never parsed as a template', () => {
    const result = compilePolicies([rule({ name: 'd', description: 'uses {{ braces }} in prose' })]);
    expect(result.ok && result.policy.rules[0]!.message.parts).toEqual(['uses {{ braces }} in prose']);
  });
});
