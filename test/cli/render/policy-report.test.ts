import { describe, expect, it } from 'vitest';
import { policyJson, renderPolicyLines, type Paint } from '../../../src/cli/render/policy-report.js';
import { emptyEvaluation } from '../../../src/domain/policy/evaluate.js';
import type { PolicyEvaluation, PolicyFinding } from '../../../src/domain/policy/model.js';

const plain: Paint = (_code, text) => text;
const tagged: Paint = (code, text) => `<${code.replace('\u001b[', '').replace('m', '')}>${text.trimEnd()}</>`;

const evaluation = (patch: Partial<PolicyEvaluation>): PolicyEvaluation => ({ ...emptyEvaluation(), ...patch });
const warn = (i: number): PolicyFinding => ({ rule: `w${i}`, effect: 'warn', message: `warning ${i}` });

describe('policy lines of driftgate check', () => {
  it.each<[string, PolicyEvaluation, string[]]>([
    ['nothing fired', emptyEvaluation(), []],
    [
      'denials first, then approvals with what they need, then warnings (a broken rule is one)',
      evaluation({
        denied: true,
        findings: [
          { rule: 'iam-warn', effect: 'warn', message: 'aws_iam_role.x: IAM change', address: 'aws_iam_role.x' },
          {
            rule: 'destroys',
            effect: 'require_approval',
            message: 'aws_db.main would be destroyed',
            address: 'aws_db.main',
          },
          { rule: 'no-gpu', effect: 'deny', message: 'p5 refused', address: 'aws_instance.gpu' },
          {
            rule: 'bad',
            effect: 'warn',
            message: 'rule bad failed on the plan: `when`: No such key: x; counted as not matched',
            error: true,
          },
        ],
        approvals: [{ rule: 'destroys', count: 2, from: ['sre-leads', 'senior'] }],
      }),
      [
        '  DENIED    no-gpu: p5 refused',
        '  APPROVAL  destroys: aws_db.main would be destroyed (2 from sre-leads or senior)',
        '  WARNING   iam-warn: aws_iam_role.x: IAM change',
        '  WARNING   bad: rule bad failed on the plan: `when`: No such key: x; counted as not matched',
      ],
    ],
    [
      'ignored changes counted per rule, the first addresses named; all minor said once',
      evaluation({
        allMinor: true,
        ignored: [
          { address: 'a.one', rule: 'cost-tags' },
          { address: 'asg.web', rule: 'autoscaler' },
          { address: 'a.two', rule: 'cost-tags' },
          { address: 'a.three', rule: 'cost-tags' },
          { address: 'a.four', rule: 'cost-tags' },
          { address: 'a.five', rule: 'cost-tags' },
        ],
      }),
      [
        '  IGNORED   5 changes ignored by cost-tags: a.one, a.two, a.three and 2 more',
        '  IGNORED   1 change ignored by autoscaler: asg.web',
        '  MINOR     every change is minor',
      ],
    ],
    [
      'at most 12 findings, the rest counted',
      evaluation({ findings: Array.from({ length: 15 }, (_, i) => warn(i)) }),
      [
        ...Array.from({ length: 12 }, (_, i) => `  WARNING   w${i}: warning ${i}`),
        '            … and 3 more policy findings (--json lists them all)',
      ],
    ],
  ])('%s', (_name, policy, lines) => {
    expect(renderPolicyLines(policy, plain)).toEqual(lines);
  });

  it('colours the label only, like the status column', () => {
    const policy = evaluation({
      denied: true,
      findings: [{ rule: 'r', effect: 'deny', message: 'no' }, warn(1)],
      ignored: [{ address: 'x', rule: 'i' }],
      allMinor: true,
    });
    expect(renderPolicyLines(policy, tagged)).toEqual([
      '  <31>DENIED</> r: no',
      '  <33>WARNING</> w1: warning 1',
      '  <2>IGNORED</> 1 change ignored by i: x',
      '  <32>MINOR</> every change is minor',
    ]);
  });

  it('escapes control characters a value of the plan may bring into a message, and cuts long ones', () => {
    const policy = evaluation({
      findings: [
        { rule: 'echo\u009b', effect: 'warn', message: `tag: \u001b[2J\u001b]0;pwned\u0007 ${'x'.repeat(400)}` },
      ],
    });
    const [line] = renderPolicyLines(policy, plain);
    expect(line).toMatch(/^ {2}WARNING {3}echo\\u009b: tag: \\u001b\[2J\\u001b\]0;pwned\\u0007 x+…$/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may reach the terminal
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(line!.length).toBeLessThan(330);
  });
});

describe('the policy object of check --json', () => {
  it('is null without policies, and has exactly the documented fields otherwise', () => {
    expect(policyJson(undefined)).toBeNull();
    const policy = evaluation({
      denied: true,
      findings: [
        { rule: 'no-gpu', effect: 'deny', message: 'p5 refused', address: 'aws_instance.gpu' },
        { rule: 'bad', effect: 'warn', message: 'rule bad failed on the plan', error: true },
      ],
      approvals: [{ rule: 'destroys', count: 1, from: ['sre-leads'] }],
      ignored: [{ address: 'asg.web', rule: 'autoscaler' }],
      fired: ['no-gpu', 'destroys', 'autoscaler'],
    });
    expect(policyJson(policy)).toStrictEqual({
      denied: true,
      findings: [
        { rule: 'no-gpu', effect: 'deny', message: 'p5 refused', address: 'aws_instance.gpu' },
        { rule: 'bad', effect: 'warn', message: 'rule bad failed on the plan' },
      ],
      approvals: [{ rule: 'destroys', count: 1, from: ['sre-leads'] }],
      allMinor: false,
      ignored: [{ address: 'asg.web', rule: 'autoscaler' }],
      fired: ['no-gpu', 'destroys', 'autoscaler'],
    });
  });
});
