import { describe, expect, it } from 'vitest';
import { type ClassifyOptions, classify, createClassifier } from '../../../src/domain/change-events/classify.js';
import { fixtureEvent, withDetail } from './fixtures.js';

const options: ClassifyOptions = {
  ownIdentities: ['arn:aws:iam::*:role/driftgate-*'],
  automation: [
    { name: 'ci', arn: 'arn:aws:iam::111122223333:role/ci-deployer' },
    { name: 'bob-scripts', arn: 'arn:aws:iam::111122223333:user/bob' },
  ],
};

describe('classify', () => {
  it.each([
    ['read-only-get-object', { kind: 'ignored', reason: 'read_only' }],
    ['terraform-own-role', { kind: 'ignored', reason: 'own_apply', rule: 'arn:aws:iam::*:role/driftgate-*' }],
    ['assumed-role-sdk', { kind: 'ignored', reason: 'automation', rule: 'ci' }],
    ['cli-iam-user', { kind: 'ignored', reason: 'automation', rule: 'bob-scripts' }],
    ['console-put-object-identity-center', { kind: 'relevant' }],
    ['console-put-bucket-tagging-identity-center', { kind: 'relevant' }],
    ['root', { kind: 'relevant' }],
  ] as const)('%s: %j', (name, expected) => {
    expect(classify(fixtureEvent(name), options)).toEqual(expected);
  });

  it('ignores a call AWS refused: it changed nothing', () => {
    const denied = withDetail('root', (d) => {
      d.errorCode = 'AccessDenied';
      d.errorMessage = 'Access Denied';
    });
    expect(classify(denied, options)).toEqual({ kind: 'ignored', reason: 'failed_call', errorCode: 'AccessDenied' });
  });

  it('trusts the readOnly flag over the event name', () => {
    const describeButWrites = withDetail('root', (d) => {
      d.eventName = 'DescribeSomething';
      d.readOnly = false;
    });
    expect(classify(describeButWrites, options)).toEqual({ kind: 'relevant' });
  });

  it.each(['GetBucketPolicy', 'ListBuckets', 'DescribeInstances', 'HeadObject', 'LookupEvents'])(
    'without a readOnly flag, %s is read-only by its name',
    (eventName) => {
      const event = withDetail('root', (d) => {
        d.eventName = eventName;
        delete d.readOnly;
      });
      expect(classify(event, options)).toEqual({ kind: 'ignored', reason: 'read_only' });
    },
  );

  it('without a readOnly flag, a write is relevant', () => {
    const event = withDetail('root', (d) => {
      delete d.readOnly;
    });
    expect(classify(event, options)).toEqual({ kind: 'relevant' });
  });

  it('matches a session by its issuer role, not by its session ARN alone', () => {
    const byIssuerOnly = createClassifier({
      ownIdentities: [],
      automation: [
        {
          name: 'sso-admins',
          arn: 'arn:aws:iam::111122223333:role/aws-reserved/sso.amazonaws.com/*/AWSReservedSSO_AdministratorAccess_*',
        },
      ],
    });
    expect(byIssuerOnly(fixtureEvent('console-put-object-identity-center'))).toEqual({
      kind: 'ignored',
      reason: 'automation',
      rule: 'sso-admins',
    });
  });

  it('a glob star does not cross a role path', () => {
    const classifier = createClassifier({ ownIdentities: ['arn:aws:iam::111122223333:role/*'], automation: [] });
    // The SSO role lives under a path: role/aws-reserved/sso.amazonaws.com/…
    expect(classifier(fixtureEvent('console-put-object-identity-center'))).toEqual({ kind: 'relevant' });
    expect(classifier(fixtureEvent('terraform-own-role'))).toMatchObject({ reason: 'own_apply' });
  });

  it('own identity wins over automation when both match', () => {
    const classifier = createClassifier({
      ownIdentities: ['arn:aws:iam::111122223333:role/driftgate-apply'],
      automation: [{ name: 'everything', arn: '**' }],
    });
    expect(classifier(fixtureEvent('terraform-own-role'))).toMatchObject({ reason: 'own_apply' });
    expect(classifier(fixtureEvent('root'))).toMatchObject({ reason: 'automation', rule: 'everything' });
  });
});
