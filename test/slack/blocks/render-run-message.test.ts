import { describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../../src/slack/action-ids.js';
import { renderRunMessage, type RunMessageInput } from '../../../src/slack/blocks/render-run-message.js';
import { emptyEvaluation } from '../../../src/domain/policy/evaluate.js';
import type { PolicyEvaluation } from '../../../src/domain/policy/model.js';
import type { RunPhase } from '../../../src/slack/blocks/run-phase.js';
import {
  ALL_FIXTURE_SECRETS,
  analysisOf,
  attribute,
  buttonsOf,
  expectBalancedFences,
  expectValidMessage,
  fixtureAnalysis,
  makeRun,
  mrkdwnTexts,
  REAL_FIXTURES,
  resource,
} from './helpers.js';

const stack = { name: 'prod/database', environment: 'prod', mode: 'alert' as const };

function input(overrides: Partial<RunMessageInput> = {}): RunMessageInput {
  return {
    stack,
    run: makeRun(),
    analysis: fixtureAnalysis('data-changes.json'),
    phase: { kind: 'awaiting' },
    canRemediate: false,
    ...overrides,
  };
}

const PHASES: [RunPhase, string, boolean][] = [
  [{ kind: 'awaiting' }, 'Waiting for', true],
  [{ kind: 'applying', by: 'U2' }, 'Applying…', false],
  [{ kind: 'applied', durationMs: 34_000, verification: 'clean' }, 'Applied in 34 s, verified: no drift', false],
  [
    { kind: 'applied', durationMs: 125_000, verification: 'still_drifting' },
    'Applied in 2 min 5 s, verification: still drifting',
    false,
  ],
  [{ kind: 'applied', durationMs: 1000, verification: 'failed' }, 'verification failed', false],
  [{ kind: 'apply_failed' }, 'Apply failed: see thread', false],
  [{ kind: 'rejected', by: 'U2', reason: 'reason' }, 'Rejected by <@U2>: reason', false],
  [{ kind: 'rejected', by: 'U2' }, 'Rejected by <@U2>', false],
  [{ kind: 'superseded', by: 'run-0002' }, 'Superseded by a newer plan', false],
  [{ kind: 'drift_resolved' }, 'Drift resolved', false],
  [{ kind: 'drift_resolved', afterInterrupted: true }, 'Apply interrupted, then drift resolved', false],
  [{ kind: 'expired' }, 'Expired', false],
];

describe('renderRunMessage', () => {
  it.each(REAL_FIXTURES)('%s: fits Slack in every phase, shows no fixture secret', (name) => {
    const analysis = fixtureAnalysis(name);
    for (const [phase] of PHASES) {
      const { message, omittedResources } = renderRunMessage(input({ analysis, phase, canRemediate: true }));
      expectValidMessage(message);
      expect(omittedResources).toBe(0);
      const json = JSON.stringify(message);
      for (const secret of ALL_FIXTURE_SECRETS) expect(json).not.toContain(secret);
      mrkdwnTexts(message).forEach(expectBalancedFences);
    }
  });

  it.each(PHASES)('phase %j says %s; buttons only while awaiting', (phase, line, buttons) => {
    const { message } = renderRunMessage(input({ phase }));
    expect(JSON.stringify(message.blocks)).toContain(JSON.stringify(line).slice(1, -1));
    expect(message.text).toContain(line);
    expect(buttonsOf(message.blocks).length > 0).toBe(buttons);
  });

  it('header, counts, context, diff and drift from a real plan', () => {
    const analysis = fixtureAnalysis('data-changes.json');
    const { message } = renderRunMessage(input({ analysis, run: makeRun({ commitSha: '0123456789abcdef' }) }));
    const json = JSON.stringify(message.blocks);
    expect(message.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Drift detected in prod/database' } });
    expect(json).toContain('+1 ~3 -1 ±3');
    expect(json).toContain('<!date^1741064767^{date_short_pretty} {time}|2025-03-04 05:06 UTC>');
    for (const part of ['`0123456789`', '`run-0001`', '`prod`', '`alert`']) expect(json).toContain(part);
    expect(json).toContain('`terraform_data.db` :red_circle: must be *REPLACED*');
    expect(json).toContain('forced by `triggers_replace`');
    expect(json).toContain('will be *DESTROYED*');
    expect(json).toContain('(sensitive value)');
    expect(json).toMatch(/-&gt; /);
    const drift = fixtureAnalysis('s3-drift.json');
    const driftJson = JSON.stringify(renderRunMessage(input({ analysis: drift })).message.blocks);
    expect(driftJson).toContain('*Changed outside Terraform*');
    expect(driftJson).toContain('was *changed* outside Terraform');
  });

  it('pending changes get their own header; an errored plan has no approve button', () => {
    const analysis = analysisOf([resource('terraform_data.a', 'create', [attribute('input', null, 'x')])]);
    const run = makeRun({ kind: 'pending_change' });
    expect(renderRunMessage(input({ run, analysis })).message.blocks[0]).toMatchObject({
      text: { text: 'Changes waiting to be applied in prod/database' },
    });
    const errored = renderRunMessage(input({ run, analysis: { ...analysis, applyable: false } })).message;
    expect(buttonsOf(errored.blocks).map((b) => b.action_id)).not.toContain(ACTION_IDS.approve);
    expect(JSON.stringify(errored.blocks)).toContain('cannot be applied');
  });

  it('buttons carry the run id; approve confirms with stack and counts; remediate only when allowed', () => {
    const without = buttonsOf(renderRunMessage(input()).message.blocks);
    expect(without.map((b) => b.action_id)).toEqual([ACTION_IDS.approve, ACTION_IDS.reject, ACTION_IDS.viewPlan]);
    const withPr = buttonsOf(renderRunMessage(input({ canRemediate: true })).message.blocks);
    expect(withPr.map((b) => b.action_id)).toEqual([
      ACTION_IDS.approve,
      ACTION_IDS.reject,
      ACTION_IDS.remediate,
      ACTION_IDS.viewPlan,
    ]);
    expect(withPr.every((b) => b.value === 'run-0001')).toBe(true);
    expect(withPr[0]).toMatchObject({ style: 'primary' });
    expect(withPr[1]).toMatchObject({ style: 'danger' });
    expect(withPr[0]!.confirm!.text.text).toContain('prod/database');
    expect(withPr[0]!.confirm!.text.text).toContain('+1 ~3 -1 ±3');
    const opened = renderRunMessage(
      input({ canRemediate: true, remediationUrl: 'https://github.com/o/r/pull/7' }),
    ).message;
    expect(buttonsOf(opened.blocks).map((b) => b.action_id)).not.toContain(ACTION_IDS.remediate);
    expect(JSON.stringify(opened.blocks)).toContain('<https://github.com/o/r/pull/7|open on GitHub>');
  });

  it('approval progress lists every approver; the on-call mention only while awaiting', () => {
    const approval = { progress: { have: 1, need: 2, approvers: ['U1'] }, groups: ['sre-leads'] };
    const awaiting = renderRunMessage(input({ approval, mention: '<!subteam^S123>' })).message;
    expect(JSON.stringify(awaiting.blocks)).toContain(
      'Approved by <@U1> (1/2) · Waiting for 1 approval more from sre-leads',
    );
    expect(JSON.stringify(awaiting.blocks)).toContain('<!subteam^S123>');
    const applied = renderRunMessage(
      input({ approval, mention: '<!subteam^S123>', phase: { kind: 'applied', durationMs: 1, verification: 'clean' } }),
    ).message;
    expect(JSON.stringify(applied)).not.toContain('subteam');
    const bad = renderRunMessage(input({ mention: '<!channel>' })).message;
    expect(JSON.stringify(bad)).not.toContain('<!channel>');
  });

  it('10,000 resources: cut with "+N more resources", destroys kept, within limits', () => {
    const changes = Array.from({ length: 10_000 }, (_, i) =>
      resource(`module.m${i}.terraform_data.r${i}`, i % 7 === 0 ? 'delete' : 'update', [
        attribute('input', `old-${i}`, `new-${i}`),
      ]),
    );
    const drift = Array.from({ length: 500 }, (_, i) =>
      resource(`terraform_data.d${i}`, 'update', [attribute('input', 'a', 'b')]),
    );
    const { message, omittedResources } = renderRunMessage(input({ analysis: analysisOf(changes, drift) }));
    expectValidMessage(message);
    const json = JSON.stringify(message.blocks);
    const shown = (json.match(/terraform_data\.[rd]\d+` :/g) ?? []).length;
    expect(omittedResources).toBe(10_500 - shown);
    expect(shown).toBeGreaterThan(10);
    expect(json).toContain(`+${omittedResources} more resources — full plan in the thread`);
    // Destroys sort first: every shown planned change is a destroy.
    expect(json).not.toContain('will be *updated in place*');
    expect(buttonsOf(message.blocks)).toHaveLength(3);
  });

  it('who changed the drift: named under the summary, within limits beside a cut diff, every change in the thread', () => {
    const changes = Array.from({ length: 400 }, (_, i) => ({
      principal: {
        kind: 'iam_user' as const,
        name: `user-${i}`,
        arn: `arn:aws:iam::1:user/user-${i}`,
        display: `user-${i} (IAM user)`,
      },
      how: 'cli' as const,
      eventName: 'PutBucketTagging',
      eventSource: 's3.amazonaws.com',
      at: new Date(Date.UTC(2026, 0, 1, 0, i)),
      eventId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      account: '111122223333',
      region: 'eu-west-1',
      resource: `terraform_data.d${i % 500}`,
    }));
    const drift = Array.from({ length: 500 }, (_, i) =>
      resource(`terraform_data.d${i}`, 'update', [attribute('input', 'a', 'b')]),
    );
    const { message, changesThread } = renderRunMessage(
      input({
        analysis: analysisOf([], drift),
        attribution: { status: 'found', changes },
        slackUsers: { 'arn:aws:iam::1:user/user-399': 'U0ALICE' },
      }),
    );
    expectValidMessage(message);
    const json = JSON.stringify(message.blocks);
    expect(json).toContain('*Who changed it*');
    expect(json).toContain('<@U0ALICE>');
    expect(json).toContain('397 more changes in the thread');
    expect(message.text).toContain('changed by user-399 (IAM user) (PutBucketTagging)');
    expectValidMessage(changesThread!);
    expect(changesThread!.text).toBe('400 changes to the drifted resources');
    // A plain alert has no who: nothing is said when nothing is known.
    expect(JSON.stringify(renderRunMessage(input()).message.blocks)).not.toContain('Who changed it');
  });

  it('who changed what drifted, in a pending change: said as about the drift, which approving overwrites', () => {
    const run = makeRun({ kind: 'pending_change' });
    const analysis = analysisOf(
      [resource('terraform_data.a', 'update', [attribute('input', 'x', 'y')])],
      [resource('terraform_data.b', 'update', [attribute('input', 'code', 'console')])],
    );
    const change = {
      principal: { kind: 'root' as const, name: 'root', display: 'root' },
      how: 'console' as const,
      eventName: 'PutBucketTagging',
      eventSource: 's3.amazonaws.com',
      at: new Date(Date.UTC(2026, 0, 1)),
      eventId: '00000000-0000-4000-8000-000000000001',
      account: '111122223333',
      region: 'eu-west-1',
      resource: 'terraform_data.b',
    };
    const found = renderRunMessage(input({ run, analysis, attribution: { status: 'found', changes: [change] } }));
    const json = JSON.stringify(found.message.blocks);
    expect(json).toContain('*Who changed what drifted* (approving this plan overwrites it)');
    expect(json).not.toContain('*Who changed it*');
    expect(found.message.text).toContain('drift changed by root (PutBucketTagging)');
    const unknown = renderRunMessage(input({ run, analysis, attribution: { status: 'unknown' } })).message;
    expect(JSON.stringify(unknown.blocks)).toContain('*Who changed what drifted:* unknown, CloudTrail did not answer');
    // In a drift alert, the drift is all there is.
    const drift = renderRunMessage(input({ analysis, attribution: { status: 'unknown' } })).message;
    expect(JSON.stringify(drift.blocks)).toContain('*Who:* unknown, CloudTrail did not answer');
  });

  it('5,000-character values and 300-character addresses stay within limits', () => {
    const long = 'v'.repeat(5000);
    const changes = Array.from({ length: 60 }, (_, i) =>
      resource(`module.${'a'.repeat(280)}.terraform_data.r${i}`, 'replace', [
        attribute('input', long, `${long}-2`, true),
        ...Array.from({ length: 30 }, (_, j) =>
          attribute(`attr_${j}_${'p'.repeat(200)}`, long, '<!channel>&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&'),
        ),
      ]),
    );
    const { message, omittedResources } = renderRunMessage(input({ analysis: analysisOf(changes) }));
    expectValidMessage(message);
    expect(omittedResources).toBeGreaterThan(0);
    expect(JSON.stringify(message.blocks)).toContain(`+${omittedResources} more resources`);
    mrkdwnTexts(message).forEach(expectBalancedFences);
  });
});

describe('renderRunMessage with policy results', () => {
  const policy = (overrides: Partial<PolicyEvaluation> = {}): PolicyEvaluation => ({
    ...emptyEvaluation(),
    ...overrides,
  });

  it('lists denials before warnings, takes the Approve button away from a denied plan and says why', () => {
    const { message } = renderRunMessage(
      input({
        policy: policy({
          denied: true,
          findings: [
            {
              rule: 'iam-warn',
              effect: 'warn',
              message: 'IAM role changes: review carefully',
              address: 'aws_iam_role.x',
            },
            {
              rule: 'no-gpu-outside-prod',
              effect: 'deny',
              message: 'p4d.24xlarge is not allowed in dev <!channel>',
              address: 'aws_instance.x',
            },
          ],
          fired: ['no-gpu-outside-prod', 'iam-warn'],
        }),
      }),
    );
    expectValidMessage(message);
    const texts = mrkdwnTexts(message.blocks).join('\n');
    expect(texts.indexOf('no-gpu-outside-prod')).toBeLessThan(texts.indexOf('iam-warn'));
    expect(texts).toContain('Denied by policy: this plan cannot be applied from Slack');
    expect(texts).not.toContain('<!channel>');
    expect(buttonsOf(message.blocks).map((b) => b.action_id)).toEqual([ACTION_IDS.reject, ACTION_IDS.viewPlan]);
  });

  it('shows every approval still needed, the policy ones named, and what was ignored', () => {
    const { message } = renderRunMessage(
      input({
        policy: policy({
          approvals: [{ rule: 'many-destroys', count: 1, from: ['senior'] }],
          ignored: [{ address: 'aws_autoscaling_group.web', rule: 'asg-desired' }],
        }),
        approval: {
          progress: {
            have: 1,
            need: 3,
            approvers: ['U1'],
            missing: [
              { count: 1, groups: ['sre-leads'], source: 'approvers.rules[0]' },
              { count: 1, groups: ['senior'], source: 'many-destroys' },
            ],
          },
          groups: ['sre-leads', 'senior'],
        },
      }),
    );
    expectValidMessage(message);
    const texts = mrkdwnTexts(message.blocks).join('\n');
    expect(texts).toContain('Waiting for 2 approvals more: 1 from sre-leads and 1 from senior (policy many-destroys)');
    expect(texts).toContain('1 change ignored by `asg-desired`');
    expect(buttonsOf(message.blocks).map((b) => b.action_id)).toContain(ACTION_IDS.approve);
  });
});
