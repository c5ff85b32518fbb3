/**
 * JSON-encoded attributes in Slack: the run message lists what changed inside a policy or a task
 * definition, within Block Kit's limits, with a sensitive policy still showing nothing.
 */
import { describe, expect, it } from 'vitest';
import { diffJsonStrings } from '../../../src/domain/plan/json-diff.js';
import { createRedactor } from '../../../src/domain/plan/redact.js';
import { renderRunMessage } from '../../../src/slack/blocks/render-run-message.js';
import { MAX_RESOURCE_CHARS, resourceText } from '../../../src/slack/blocks/resource-diff.js';
import {
  analysisOf,
  attribute,
  expectBalancedFences,
  expectValidMessage,
  fixtureAnalysis,
  makeRun,
  mrkdwnTexts,
  resource,
} from './helpers.js';

const stack = { name: 'prod/iam', environment: 'prod', mode: 'alert' as const };

function policy(statements: number, action = 's3:GetObject'): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: Array.from({ length: statements }, (_, i) => ({
      Sid: `Statement${i}`,
      Effect: 'Allow',
      Action: action,
      Resource: `arn:aws:s3:::bucket-${i}-${'x'.repeat(60)}/*`,
    })),
  });
}

/** An attribute holding a JSON policy, with its structural diff as the analysis builds it. */
function policyAttribute(path: string, before: string, after: string) {
  const attr = attribute(path, before, after);
  attr.json = diffJsonStrings(before, after, createRedactor([]))!;
  return attr;
}

describe('JSON-encoded attributes in the run message', () => {
  it('lists the statement and the action a console edit added, and stays valid Block Kit', () => {
    const analysis = fixtureAnalysis('aws-json-attributes.json');
    const { message } = renderRunMessage({
      stack,
      run: makeRun({ stack: stack.name }),
      analysis,
      phase: { kind: 'awaiting' },
      canRemediate: false,
    });
    expectValidMessage(message);
    const text = mrkdwnTexts(message).join('\n');
    for (const t of mrkdwnTexts(message)) expectBalancedFences(t);
    expect(text).toContain(
      '~ policy = (JSON) 2 changes inside:\n    + Statement[Sid="ReadLogs"].Action = "logs:DeleteLogGroup"',
    );
    expect(text).toContain('+ Statement[Sid="ConsoleAdded"] = {"Action":["s3:*"]');
    expect(text).toContain('~ policy = (JSON) same document');
    expect(text).toContain('~ [name="web"].image = ');
    // The sensitive inline policy: its placeholder, nothing from inside it.
    expect(text).toContain('~ policy = (sensitive value)');
    expect(text).not.toContain('db-json-fixture-secret');
  });

  it('a rewritten policy shows its first changes and counts the rest, within the resource’s budget', () => {
    const attr = policyAttribute('policy', policy(0), policy(130));
    expect(attr.json!.omitted).toBe(30);
    const text = resourceText(resource('aws_iam_policy.big', 'update', [attr, attribute('name', 'a', 'b')]), false);
    expect(text.length).toBeLessThanOrEqual(MAX_RESOURCE_CHARS);
    expectBalancedFences(text);
    expect(text).toMatch(/… 1\d\d more changes in the full plan/);
    expect(text).toContain('~ name = "a" -&gt; "b"');
  });

  it('many resources with large JSON diffs: the message keeps to the limits and counts what it left out', () => {
    const changes = Array.from({ length: 60 }, (_, i) =>
      resource(`aws_iam_policy.p${String(i).padStart(2, '0')}`, 'update', [
        policyAttribute('policy', policy(40), policy(40, 's3:*')),
      ]),
    );
    const { message, omittedResources } = renderRunMessage({
      stack,
      run: makeRun({ stack: stack.name, kind: 'pending_change' }),
      analysis: analysisOf(changes),
      phase: { kind: 'awaiting' },
      canRemediate: false,
    });
    expectValidMessage(message);
    expect(omittedResources).toBeGreaterThan(0);
    for (const t of mrkdwnTexts(message)) expectBalancedFences(t);
    expect(mrkdwnTexts(message).join('\n')).toContain('more changes in the full plan');
  });
});
