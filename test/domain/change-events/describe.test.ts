import { describe, expect, it } from 'vitest';
import { cloudTrailConsoleUrl, describeChange, slackUserKeys } from '../../../src/domain/change-events/describe.js';
import { fixtureEvent, withDetail } from './fixtures.js';

describe('describeChange', () => {
  it.each([
    [
      'console-put-object-identity-center',
      {
        principal: {
          kind: 'identity_center',
          name: 'alice@example.com',
          issuer:
            'arn:aws:iam::111122223333:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_AdministratorAccess_0a1b2c3d4e5f6789',
          display: 'alice@example.com (Identity Center, AdministratorAccess)',
        },
        how: 'console',
        eventName: 'PutObject',
      },
    ],
    [
      'cli-iam-user',
      {
        principal: {
          kind: 'iam_user',
          arn: 'arn:aws:iam::111122223333:user/bob',
          name: 'bob',
          display: 'bob (IAM user)',
        },
        how: 'cli',
        eventName: 'AuthorizeSecurityGroupIngress',
        sourceIp: '198.51.100.7',
      },
    ],
    [
      'assumed-role-sdk',
      {
        principal: {
          kind: 'assumed_role',
          name: 'gha-orders-4821',
          issuer: 'arn:aws:iam::111122223333:role/ci-deployer',
          display: 'gha-orders-4821 via role ci-deployer',
        },
        how: 'sdk',
      },
    ],
    ['root', { principal: { kind: 'root', name: 'root', display: 'root (account 111122223333)' }, how: 'console' }],
    [
      'terraform-own-role',
      {
        principal: { kind: 'assumed_role', display: 'driftgate-apply-run-0042 via role driftgate-apply' },
        how: 'terraform',
      },
    ],
  ] as const)('%s', (name, expected) => {
    expect(describeChange(fixtureEvent(name))).toMatchObject(expected);
  });

  it.each([
    [
      'a path that only holds the reserved one',
      'arn:aws:iam::111122223333:role/team/aws-reserved/sso.amazonaws.com/AWSReservedSSO_Admin_0a1b',
    ],
    ['the reserved name at an ordinary path', 'arn:aws:iam::111122223333:role/AWSReservedSSO_Admin_0a1b'],
    [
      'the reserved path with another name',
      'arn:aws:iam::111122223333:role/aws-reserved/sso.amazonaws.com/ci-deployer',
    ],
  ])('a session of a role at %s is an ordinary assumed role, its name chosen by its caller', (_, role) => {
    const event = withDetail('console-put-object-identity-center', (d) => {
      const identity = d.userIdentity as { sessionContext: { sessionIssuer: { arn: string } } };
      identity.sessionContext.sessionIssuer.arn = role;
    });
    expect(describeChange(event).principal.kind).toBe('assumed_role');
  });

  it.each([
    [
      'console-put-object-identity-center',
      [
        'arn:aws:sts::111122223333:assumed-role/AWSReservedSSO_AdministratorAccess_0a1b2c3d4e5f6789/alice@example.com',
        'alice@example.com',
      ],
    ],
    ['cli-iam-user', ['arn:aws:iam::111122223333:user/bob']],
    ['assumed-role-sdk', []],
    ['terraform-own-role', []],
    ['root', []],
  ] as const)('%s is known to slackUsers by %j', (name, keys) => {
    expect(slackUserKeys(describeChange(fixtureEvent(name)).principal)).toEqual(keys);
  });

  it('gives the time, the event id and the CloudTrail console link', () => {
    const change = describeChange(fixtureEvent('root'));
    expect(change.at.toISOString()).toBe('2026-12-03T13:21:40.000Z');
    expect(change.eventId).toBe('0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d');
    expect(change.consoleUrl).toBe(
      'https://eu-west-1.console.aws.amazon.com/cloudtrail/home?region=eu-west-1#/events/0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d',
    );
  });

  it.each([
    [
      {
        type: 'IdentityCenterUser',
        onBehalfOf: { userId: 'u-1234', identityStoreArn: 'arn:aws:identitystore::1:identitystore/d-1' },
      },
      'identity_center',
      'u-1234 (Identity Center)',
    ],
    [{ type: 'SAMLUser', principalId: 'x', userName: 'carol' }, 'saml_user', 'carol (SAML)'],
    [
      { type: 'WebIdentityUser', userName: 'dave', identityProvider: 'accounts.google.com' },
      'web_identity_user',
      'dave (web identity, accounts.google.com)',
    ],
    [{ type: 'AWSService', invokedBy: 'autoscaling.amazonaws.com' }, 'aws_service', 'autoscaling.amazonaws.com'],
    [{ type: 'AWSAccount', accountId: '444455556666' }, 'aws_account', 'account 444455556666'],
    [{ type: 'SomethingNew', principalId: 'P1' }, 'unknown', 'P1 (SomethingNew)'],
  ])('principal of a %j', (userIdentity, kind, display) => {
    const event = withDetail('cli-iam-user', (d) => {
      d.userIdentity = userIdentity;
    });
    expect(describeChange(event).principal).toMatchObject({ kind, display });
  });

  it.each([
    ['console.amazonaws.com', undefined, 'console'],
    ['whatever', 'true', 'console'],
    ['aws-cli/2.1 botocore/2', undefined, 'cli'],
    ['aws-sdk-js/3.700.0 ua/2.1 os/linux', undefined, 'sdk'],
    ['Boto3/1.35.0 md/Botocore#1.35.0', undefined, 'sdk'],
    ['HashiCorp/1.0 Terraform/1.9.8 aws-sdk-go-v2/1.32', undefined, 'terraform'],
    ['cloudformation.amazonaws.com', undefined, 'cloudformation'],
    ['ec2.amazonaws.com', undefined, 'aws_service'],
    ['curl/8.0', undefined, 'unknown'],
  ])('%s (from console: %s) is %s', (userAgent, fromConsole, how) => {
    const event = withDetail('cli-iam-user', (d) => {
      d.userAgent = userAgent;
      if (fromConsole) d.sessionCredentialFromConsole = fromConsole;
    });
    expect(describeChange(event).how).toBe(how);
  });

  it('builds no console link from a region or event id that is not AWS-shaped', () => {
    expect(cloudTrailConsoleUrl('eu-west-1', 'abc"><script>')).toBeUndefined();
    expect(cloudTrailConsoleUrl('evil.com/x', '0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d')).toBeUndefined();
    expect(cloudTrailConsoleUrl('us-gov-west-1', '0a9b8c7d-6e5f')).toContain('us-gov-west-1.console');
  });
});
