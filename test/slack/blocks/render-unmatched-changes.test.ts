import { describe, expect, it } from 'vitest';
import { describeChange } from '../../../src/domain/change-events/describe.js';
import { namedResources, type UnmatchedChange } from '../../../src/domain/change-events/unmatched.js';
import { renderUnmatchedChanges } from '../../../src/slack/blocks/render-unmatched-changes.js';
import { fixtureEvent, withDetail } from '../../domain/change-events/fixtures.js';
import { expectNoInjection, expectValidMessage, mrkdwnTexts } from './helpers.js';

const unmatched = (event: Parameters<typeof describeChange>[0]): UnmatchedChange => ({
  ...describeChange(event),
  resources: namedResources(event),
});

const HOSTILE = '<!channel> <https://evil.example|click> <@U999> <!subteam^S1> `x` &';

describe('renderUnmatchedChanges', () => {
  it('lists each change with when, who, how, the call, its resources, account and region, source IP and link', () => {
    const message = renderUnmatchedChanges(
      { changes: [unmatched(fixtureEvent('console-put-bucket-tagging-identity-center'))], counted: 1, days: 7 },
      { slackUsers: { 'alice@example.com': 'U0ALICE' } },
    );
    expectValidMessage(message);
    const text = mrkdwnTexts(message).join('\n');
    expect(text).toContain('*Changes to resources no stack manages* in the last 7 days, newest first');
    expect(text).toContain('<!date^1796292249^');
    expect(text).toContain('<@U0ALICE> (alice@example.com (Identity Center, AdministratorAccess)) in the console');
    expect(text).toContain('`PutBucketTagging` (s3.amazonaws.com) `arn:aws:s3:::acme-prod-assets`');
    expect(text).toContain('account `111122223333` `eu-west-1` from `203.0.113.24`');
    expect(text).toContain('|CloudTrail event>');
    expect(text).not.toContain('not shown');
  });

  it('says how many were counted beyond those shown', () => {
    const change = unmatched(fixtureEvent('cli-iam-user'));
    const message = renderUnmatchedChanges({ changes: [change, change], counted: 10_000, days: 7 });
    expectValidMessage(message);
    expect(mrkdwnTexts(message).join('\n')).toContain('9998 more changes counted in the last 7 days, not shown');
    expect(message.text).toContain('10000 changes in the last 7 days');
  });

  it('says so when there is nothing', () => {
    const message = renderUnmatchedChanges({ changes: [], counted: 0, days: 7 });
    expectValidMessage(message);
    expect(message.text).toBe('No change to a resource no stack manages in the last 7 days.');
  });

  it('escapes what the caller wrote, and stays within Block Kit limits for 200 long changes', () => {
    const hostile = withDetail('cli-iam-user', (detail) => {
      detail.eventName = HOSTILE;
      detail.userIdentity = { type: 'IAMUser', userName: HOSTILE };
      detail.resources = Array.from({ length: 12 }, (_, i) => ({ ARN: `arn:aws:s3:::${'b'.repeat(200)}${i}` }));
      detail.requestParameters = { groupId: `sg-<!channel>` };
    });
    const changes = Array.from({ length: 200 }, () => unmatched(hostile));
    const message = renderUnmatchedChanges({ changes, counted: 250, days: 7 });
    expectValidMessage(message);
    const texts = mrkdwnTexts(message);
    expectNoInjection(texts);
    expect(texts.join('\n')).toMatch(/\d+ more changes counted in the last 7 days, not shown/);
  });
});
