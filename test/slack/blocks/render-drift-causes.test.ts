import { describe, expect, it } from 'vitest';
import type { DriftCauses } from '../../../src/domain/drift-causes/model.js';
import { renderDriftCauses } from '../../../src/slack/blocks/render-drift-causes.js';
import { blockProblems } from '../../../src/slack/limits.js';

const state = {
  kind: 'state_outside' as const,
  from: { serial: 41, lineage: 'L' },
  to: { serial: 43, lineage: 'L' },
  since: 'apply' as const,
};

describe('renderDriftCauses', () => {
  it('one line per set of causes, resources with the same causes together, who escaped and dated by Slack', () => {
    const causes: DriftCauses = {
      'aws_s3_bucket.a': [state],
      'aws_s3_bucket.b': [state],
      'aws_s3_bucket.c': [state],
      'aws_s3_bucket.d': [state],
      'aws_iam_role.ci': [
        {
          kind: 'out_of_band',
          who: '<!channel> *eve*',
          how: 'console',
          eventName: 'PutRolePolicy',
          at: '2026-12-05T10:00:00Z',
        },
      ],
      'aws_s3_object.x': [{ kind: 'unknown', why: 'CloudTrail did not answer who changed it' }],
    };
    const block = renderDriftCauses(causes)!;
    const text = block.text!.text;
    expect(text.split('\n')).toEqual([
      '*Why*',
      '• `aws_s3_bucket.a`, `aws_s3_bucket.b`, `aws_s3_bucket.c` and 1 more: the state was written outside driftgate: serial 41 → 43, no driftgate apply in between',
      `• \`aws_iam_role.ci\`: changed in the console by *&lt;!channel&gt; *eve** <!date^${Date.parse('2026-12-05T10:00:00Z') / 1000}^{ago}|2026-12-05 10:00 UTC> (\`PutRolePolicy\`)`,
      '• `aws_s3_object.x`: :grey_question: why unknown: CloudTrail did not answer who changed it',
    ]);
    expect(blockProblems([block])).toEqual([]);
  });

  it('a state written outside driftgate names who wrote it, escaped and dated by Slack', () => {
    const writer = { who: '_bob_ <@U1>', how: 'cli' as const, eventName: 'PutObject', at: '2026-12-05T10:00:00Z' };
    const block = renderDriftCauses({ 'terraform_data.app': [{ ...state, writer }] })!;
    expect(block.text!.text.split('\n')[1]).toBe(
      `• \`terraform_data.app\`: the state was written outside driftgate with the AWS CLI by *_bob_ &lt;@U1&gt;* <!date^${Date.parse('2026-12-05T10:00:00Z') / 1000}^{ago}|2026-12-05 10:00 UTC> (\`PutObject\`): serial 41 → 43, no driftgate apply in between`,
    );
    expect(blockProblems([block])).toEqual([]);
  });

  it('nothing to tell: no block; too many kinds of causes: counted, within Slack limits', () => {
    expect(renderDriftCauses(undefined)).toBeUndefined();
    expect(renderDriftCauses({})).toBeUndefined();
    const many: DriftCauses = {};
    for (let i = 0; i < 40; i++)
      many[`terraform_data.r${i}`] = [
        { kind: 'input', source: 'config', name: `v${i}`.repeat(60), change: 'changed', since: 'apply' },
      ];
    const block = renderDriftCauses(many)!;
    expect(block.text!.text).toMatch(/… and 32 more resources: `\/drift show` lists them$/);
    expect(blockProblems([block])).toEqual([]);
  });
});
