import { describe, expect, it } from 'vitest';
import { describeChange } from '../../../src/domain/change-events/describe.js';
import { namedResources, type UnmatchedChange } from '../../../src/domain/change-events/unmatched.js';
import { renderHome } from '../../../src/slack/blocks/render-home.js';
import { recentUnmatchedBlocks } from '../../../src/slack/blocks/render-recent-unmatched.js';
import { renderUnmatchedChanges } from '../../../src/slack/blocks/render-unmatched-changes.js';
import { fixtureEvent, withDetail } from '../../domain/change-events/fixtures.js';
import { expectNoInjection, expectValidMessage, expectValidView, mrkdwnTexts } from './helpers.js';

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

describe('recentUnmatchedBlocks: the App Home section', () => {
  const bob = unmatched(fixtureEvent('cli-iam-user'));
  const root = unmatched(fixtureEvent('root'));
  const lambda = unmatched(fixtureEvent('assumed-role-sdk'));
  const text = (blocks: unknown[]) => mrkdwnTexts(blocks).join('\n');

  it('says how many in the last 24 hours and the newest 3, one line each: when, who, the call and its resource', () => {
    const many = { ...bob, resources: ['sg-0a1b2c3d4e5f60718', 'sg-2', 'sg-3'] };
    const blocks = recentUnmatchedBlocks({
      view: { changes: [root, many, lambda, bob], counted: 12 },
      slackUsers: { 'arn:aws:iam::111122223333:user/bob': 'U0BOB' },
    });
    expect(blocks[0]).toMatchObject({ type: 'header', text: { text: 'Changes to resources no stack manages' } });
    const lines = text(blocks).split('\n');
    expect(lines[0]).toBe('*12 changes* in the last 24 hours, the newest 3:');
    expect(lines.slice(1, 4)).toEqual([
      expect.stringMatching(
        /^• <!date\^\d+\^.*> :warning: \*root \(account 111122223333\)\*: `DeleteBucketPolicy` `arn:aws:s3:::acme-prod-assets` and 1 more$/,
      ),
      expect.stringMatching(
        /^• <!date\^\d+\^.*> <@U0BOB> \(bob \(IAM user\)\): `AuthorizeSecurityGroupIngress` `sg-0a1b2c3d4e5f60718` and 2 more$/,
      ),
      expect.stringMatching(
        /^• <!date\^\d+\^.*> \*gha-orders-4821 via role ci-deployer\*: `UpdateFunctionConfiguration20150331v2` `orders-api`$/,
      ),
    ]);
    expect(lines.at(-1)).toBe('`/drift events` lists them all');
  });

  it('says the count alone when every change shown is all there is', () => {
    const blocks = recentUnmatchedBlocks({ view: { changes: [lambda], counted: 1 }, slackUsers: {} });
    expect(text(blocks)).toMatch(/^\*1 change\* in the last 24 hours:\n• /);
  });

  it('is one quiet line with nothing in the last 24 hours, and says so when the store could not be read', () => {
    expect(text(recentUnmatchedBlocks({ view: { changes: [], counted: 0 }, slackUsers: {} }))).toBe(
      'No changes to unmanaged resources in the last 24 hours.',
    );
    expect(text(recentUnmatchedBlocks({ view: 'unavailable', slackUsers: {} }))).toContain('could not be read');
  });

  it('escapes what the caller wrote, and keeps the Home within its limits, between the stacks and the activity', () => {
    const hostile = unmatched(
      withDetail('cli-iam-user', (detail) => {
        detail.eventName = HOSTILE;
        detail.userIdentity = { type: 'IAMUser', userName: HOSTILE };
        detail.resources = [{ ARN: `arn:aws:s3:::${'b'.repeat(300)}<!channel>` }];
      }),
    );
    const stacks = Array.from({ length: 500 }, (_, i) => ({
      name: `env/stack-${i}`,
      status: i % 2 ? ('drifted' as const) : ('in_sync' as const),
    }));
    const unmatchedSection = { view: { changes: [hostile, hostile, hostile], counted: 3 }, slackUsers: {} };
    const home = renderHome({ stacks, pending: [], activity: [], unmatched: unmatchedSection });
    expectValidView(home);
    expectNoInjection(mrkdwnTexts(home.blocks));
    const headers = home.blocks
      .filter((b) => b.type === 'header')
      .map((b) => (b as { text: { text: string } }).text.text);
    expect(headers.slice(-2)).toEqual(['Changes to resources no stack manages', 'Recent activity']);
    expect(JSON.stringify(renderHome({ stacks, pending: [], activity: [] }))).not.toContain('no stack manages');
  });
});
