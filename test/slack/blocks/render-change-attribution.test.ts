import { describe, expect, it } from 'vitest';
import { describeChange } from '../../../src/domain/change-events/describe.js';
import {
  type AttributedChange,
  changedSubject,
  latestPerAttribute,
  renderChangeAttribution,
} from '../../../src/slack/blocks/render-change-attribution.js';
import { fixtureEvent, withDetail } from '../../domain/change-events/fixtures.js';
import { expectNoInjection, expectValidMessage, mrkdwnTexts } from './helpers.js';

const attributed = (name: Parameters<typeof fixtureEvent>[0], resource?: string): AttributedChange => ({
  ...describeChange(fixtureEvent(name)),
  ...(resource ? { resource } : {}),
});

describe('who changed it', () => {
  it('names the principal as a Slack mention, how, the call, when, from where, and links the event', () => {
    const rendered = renderChangeAttribution(
      { status: 'found', changes: [attributed('console-put-bucket-tagging-identity-center', 'aws_s3_bucket.assets')] },
      { slackUsers: { 'alice@example.com': 'U0ALICE' } },
    );
    expectValidMessage(rendered);
    const text = mrkdwnTexts({ blocks: rendered.blocks }).join('\n');
    expect(text).toContain('<@U0ALICE> (alice@example.com (Identity Center, AdministratorAccess))');
    expect(text).toContain('`aws_s3_bucket.assets` in the console: `PutBucketTagging`');
    expect(text).toContain('<!date^1796292249^');
    expect(text).toContain('from `203.0.113.24`');
    expect(text).toContain(
      '<https://eu-west-1.console.aws.amazon.com/cloudtrail/home?region=eu-west-1#/events/c4f0d2a7-1b3e-4e59-a6c8-0f2d4b6e8a93|CloudTrail event>',
    );
    expect(rendered.thread).toBeUndefined();
  });

  it('mentions nobody for a session of an ordinary role, whose name its caller chose: role and session stay as text', () => {
    // Anyone who may assume ci-deployer names the session: here after Alice, to have her mentioned.
    const impersonating = describeChange(
      withDetail('assumed-role-sdk', (d) => {
        const identity = d.userIdentity as { arn: string; principalId: string };
        identity.arn = 'arn:aws:sts::111122223333:assumed-role/ci-deployer/alice@example.com';
        identity.principalId = 'AROAEXAMPLECI:alice@example.com';
      }),
    );
    const rendered = renderChangeAttribution(
      { status: 'found', changes: [impersonating] },
      {
        slackUsers: {
          'alice@example.com': 'U0ALICE',
          'arn:aws:sts::111122223333:assumed-role/ci-deployer/alice@example.com': 'U0ALICE',
          'arn:aws:iam::111122223333:role/ci-deployer': 'U0CI',
        },
      },
    );
    const text = mrkdwnTexts({ blocks: rendered.blocks }).join();
    expect(text).not.toContain('<@');
    expect(text).toContain('*alice@example.com via role ci-deployer* changed with an AWS SDK');
  });

  it('mentions an IAM user by its ARN, not by a bare name another account could give a user', () => {
    const bob = attributed('cli-iam-user');
    const byArn = renderChangeAttribution(
      { status: 'found', changes: [bob] },
      { slackUsers: { 'arn:aws:iam::111122223333:user/bob': 'U0BOB' } },
    );
    expect(mrkdwnTexts({ blocks: byArn.blocks }).join()).toContain('<@U0BOB> (bob (IAM user))');
    const byName = renderChangeAttribution({ status: 'found', changes: [bob] }, { slackUsers: { bob: 'U0BOB' } });
    expect(mrkdwnTexts({ blocks: byName.blocks }).join()).not.toContain('<@');
  });

  it('says CloudTrail did not answer about the drifted resources no change names', () => {
    const changes = [attributed('root', 'aws_s3_bucket.assets')];
    const partial = renderChangeAttribution({ status: 'found', changes, unanswered: true });
    expectValidMessage(partial);
    expect(mrkdwnTexts({ blocks: partial.blocks }).join()).toContain(
      'The other drifted resources: who unknown, CloudTrail did not answer',
    );
    const whole = renderChangeAttribution({ status: 'found', changes });
    expect(mrkdwnTexts({ blocks: whole.blocks }).join()).not.toContain('CloudTrail did not answer');
  });

  it('says how many drifted resources CloudTrail was not asked about, found or not', () => {
    const changes = [attributed('root', 'aws_s3_bucket.assets')];
    const found = renderChangeAttribution({ status: 'found', changes, notLookedUp: 3 });
    expectValidMessage(found);
    expect(mrkdwnTexts({ blocks: found.blocks }).join()).toContain('3 more drifted resources not looked up');
    const none = renderChangeAttribution({ status: 'none', notLookedUp: 1 });
    expectValidMessage(none);
    expect(none.text).toBe(
      'who: unknown, CloudTrail has no call that changed the resources it was asked about; 1 more drifted resource not looked up (a check asks CloudTrail about a few at most)',
    );
    expect(mrkdwnTexts({ blocks: renderChangeAttribution({ status: 'found', changes }).blocks }).join()).not.toContain(
      'not looked up',
    );
  });

  it('marks a change by root', () => {
    const rendered = renderChangeAttribution({
      status: 'found',
      changes: [attributed('root', 'aws_s3_bucket.assets')],
    });
    expect(mrkdwnTexts({ blocks: rendered.blocks }).join()).toContain(':warning: *root (account 111122223333)*');
  });

  it('shows the latest change to each attribute first (what its kind of call sets) and lists every change in the thread', () => {
    const at = (change: AttributedChange, iso: string, by?: string): AttributedChange => ({
      ...change,
      at: new Date(iso),
      eventId: `${change.eventId}-${iso}`,
      ...(by ? { principal: { ...change.principal, display: by } } : {}),
    });
    const tagging = attributed('console-put-bucket-tagging-identity-center', 'aws_s3_bucket.assets');
    const policy = attributed('root', 'aws_s3_bucket.assets');
    const changes = [
      attributed('console-put-object-identity-center', 'aws_s3_object.config'),
      tagging,
      // The tags again, later and by someone else: only the latest is in the alert.
      at(tagging, '2026-12-03T10:30:00Z', 'bob'),
      // The policy put, then deleted: the same attribute.
      at({ ...policy, eventName: 'PutBucketPolicy' }, '2026-12-03T09:00:00Z'),
      policy,
      attributed('cli-iam-user', 'aws_security_group.ssh'),
    ];
    expect(latestPerAttribute(changes).map((c) => [c.resource, c.eventName, c.principal.display])).toEqual([
      ['aws_s3_bucket.assets', 'DeleteBucketPolicy', 'root (account 111122223333)'],
      ['aws_security_group.ssh', 'AuthorizeSecurityGroupIngress', expect.any(String)],
      ['aws_s3_bucket.assets', 'PutBucketTagging', 'bob'],
      ['aws_s3_object.config', 'PutObject', expect.any(String)],
    ]);
    const rendered = renderChangeAttribution({ status: 'found', changes }, { maxInAlert: 3 });
    expectValidMessage(rendered);
    const alert = mrkdwnTexts({ blocks: rendered.blocks }).join('\n');
    expect(alert.indexOf('DeleteBucketPolicy')).toBeLessThan(alert.indexOf('AuthorizeSecurityGroupIngress'));
    expect(alert).toContain('*bob*');
    expect(alert).not.toContain('PutObject');
    expect(alert).toContain('3 more changes in the thread');
    expect(rendered.thread).toBeDefined();
    expectValidMessage(rendered.thread!);
    const thread = mrkdwnTexts(rendered.thread).join('\n');
    for (const name of ['PutObject', 'PutBucketTagging', 'PutBucketPolicy', 'DeleteBucketPolicy'])
      expect(thread).toContain(name);
  });

  it('takes what a call sets from its name, without the verb or an API version', () => {
    expect(changedSubject('PutBucketTagging')).toBe(changedSubject('DeleteBucketTagging'));
    // Tagging calls set the tags, whatever their service calls them; a role's other updates are not tags.
    for (const tagging of [
      'TagRole',
      'UntagRole',
      'CreateTags',
      'DeleteTags',
      'AddTagsToResource',
      'RemoveTagsFromResource',
    ])
      expect(changedSubject(tagging)).toBe(changedSubject('PutBucketTagging'));
    expect(changedSubject('UpdateRole')).not.toBe(changedSubject('TagRole'));
    expect(changedSubject('AuthorizeSecurityGroupIngress')).toBe(changedSubject('RevokeSecurityGroupIngress'));
    expect(changedSubject('UpdateFunctionConfiguration20150331v2')).toBe('FunctionConfiguration');
    expect(changedSubject('PutBucketPolicy')).not.toBe(changedSubject('PutBucketTagging'));
    // A verb only when a word follows it: `Settings` is not `Set` + `tings`.
    expect(changedSubject('Settings')).toBe('Settings');
  });

  it('keeps a thread of thousands of changes within Slack limits, saying how many it left out', () => {
    const base = attributed('cli-iam-user', 'aws_security_group.ssh');
    const changes = Array.from({ length: 3000 }, (_, i) => ({
      ...base,
      eventId: `e-${i}`,
      at: new Date(base.at.getTime() + i * 1000),
    }));
    const rendered = renderChangeAttribution({ status: 'found', changes });
    expectValidMessage(rendered);
    expectValidMessage(rendered.thread!);
    expect(mrkdwnTexts(rendered.thread).join()).toMatch(/\d+ older changes not listed/);
  });

  it('escapes what the caller wrote: a session name, a user agent, an event name', () => {
    const hostile = describeChange(
      withDetail('assumed-role-sdk', (d) => {
        const identity = d.userIdentity as Record<string, unknown>;
        identity.arn = 'arn:aws:sts::111122223333:assumed-role/ci-deployer/<!channel><https://evil.example|x>';
        d.eventName = 'Put<@U999>';
        d.sourceIPAddress = '<!here>';
        d.eventID = 'x"><https://evil';
      }),
    );
    const rendered = renderChangeAttribution(
      { status: 'found', changes: [{ ...hostile, resource: 'aws_s3_bucket.<!subteam^S1>' }] },
      { slackUsers: { '<!channel><https://evil.example|x>': '<!channel>' } },
    );
    expectValidMessage(rendered);
    expectNoInjection(mrkdwnTexts({ text: rendered.text, blocks: rendered.blocks }));
    expect(mrkdwnTexts({ blocks: rendered.blocks }).join()).not.toContain('CloudTrail event');
  });

  it('says who is unknown when CloudTrail did not answer, and when it knew of no call', () => {
    const unknown = renderChangeAttribution({ status: 'unknown' });
    expect(unknown.text).toBe('who: unknown, CloudTrail did not answer');
    expect(mrkdwnTexts({ blocks: unknown.blocks }).join()).toContain('unknown, CloudTrail did not answer');
    const none = renderChangeAttribution({ status: 'none' });
    expect(none.text).toContain('CloudTrail has no call');
  });
});
