import { describe, expect, it } from 'vitest';
import {
  IDENTIFIER_LIMITS,
  identifiersOf,
  normalizeIdentifier,
} from '../../../src/domain/change-events/identifiers.js';
import { fixtureEvent, withDetail } from './fixtures.js';

describe('identifiersOf', () => {
  it('names an S3 object as its ARN, bucket/key and its bucket', () => {
    const ids = identifiersOf(fixtureEvent('console-put-object-identity-center'));
    expect(ids).toEqual(
      expect.arrayContaining([
        'arn:aws:s3:::acme-prod-assets/config/app.json',
        'acme-prod-assets/config/app.json',
        'arn:aws:s3:::acme-prod-assets',
        'acme-prod-assets',
      ]),
    );
  });

  it('finds identifiers in requestParameters and responseElements', () => {
    const ids = identifiersOf(fixtureEvent('assumed-role-sdk'));
    expect(ids).toEqual(
      expect.arrayContaining(['orders-api', 'arn:aws:lambda:eu-west-1:111122223333:function:orders-api']),
    );
    expect(identifiersOf(fixtureEvent('cli-iam-user'))).toEqual(
      expect.arrayContaining(['sg-0a1b2c3d4e5f60718', 'sgr-0f1e2d3c4b5a69788']),
    );
  });

  it('takes values only from parameters that name resources, and ARNs wherever they are', () => {
    // RunInstances: `tenancy: "default"` is a setting, though the default security group is named so.
    const run = withDetail('cli-iam-user', (d) => {
      d.eventName = 'RunInstances';
      d.requestParameters = {
        instanceType: 't3.micro',
        tenancy: 'default',
        imageId: 'ami-0abc1234',
        iamInstanceProfile: { arn: 'arn:aws:iam::111122223333:instance-profile/web' },
        tagSpecificationSet: { items: [{ tags: [{ key: 'Team', value: 'platform-default' }] }] },
      };
      d.responseElements = {
        instancesSet: { items: [{ instanceId: 'i-0123456789abcdef0' }] },
        groupSet: { items: [{ groupName: 'default' }] },
        policy: '{"Resource":"arn:aws:s3:::acme-prod-assets/*"}',
      };
    });
    const ids = identifiersOf(run);
    expect(ids).toEqual(
      expect.arrayContaining([
        'ami-0abc1234',
        'arn:aws:iam::111122223333:instance-profile/web',
        'i-0123456789abcdef0',
        'default',
      ]),
    );
    for (const value of ['t3.micro', 'platform-default', 'Team', 'arn:aws:s3:::acme-prod-assets/*'])
      expect(ids).not.toContain(value);
    expect(ids.filter((id) => id === 'default')).toHaveLength(1);
    // `groupName: "default"` names it; `tenancy: "default"` alone does not.
    const tenancyOnly = withDetail('cli-iam-user', (d) => {
      d.requestParameters = { tenancy: 'default', resourceIds: ['vpc-0a1b2c3d'] };
      d.responseElements = null;
    });
    expect(identifiersOf(tenancyOnly)).not.toContain('default');
    expect(identifiersOf(tenancyOnly)).toContain('vpc-0a1b2c3d');
    // Lambda's UUID as CloudTrail writes it, and an EventBridge rule.
    const named = withDetail('cli-iam-user', (d) => {
      d.requestParameters = { uUID: 'a1b2c3d4-5678-90ab-cdef-11111EXAMPLE', rule: 'nightly-export' };
      d.responseElements = null;
    });
    expect(identifiersOf(named)).toEqual(
      expect.arrayContaining(['a1b2c3d4-5678-90ab-cdef-11111EXAMPLE', 'nightly-export']),
    );
  });

  it('takes nothing from tags: keys named like identifiers, ARNs in values, in every spelling', () => {
    // Whoever may tag a resource writes these; a stack's resources must not be named through them.
    const other = 'arn:aws:s3:::acme-prod-assets';
    const tagged = withDetail('cli-iam-user', (d) => {
      d.eventName = 'TagResource';
      d.requestParameters = {
        resource: 'arn:aws:lambda:eu-west-1:111122223333:function:orders-api',
        tags: { bucketName: 'acme-prod-assets', Owner: other },
        Tags: [{ Key: 'instanceId', Value: 'i-0123456789abcdef0' }],
        tagSet: { items: [{ key: 'Name', value: `${other}/a` }] },
        TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'roleArn', Value: `${other}/b` }] }],
        Tagging: { TagSet: [{ Key: 'queueUrl', Value: `${other}/c` }] },
        tagKeys: [`${other}/d`],
        tagsToAdd: [{ key: 'dbInstanceIdentifier', value: 'prod-db' }],
      };
      d.responseElements = { tags: { functionName: 'payments-api' }, tagList: [{ key: 'k', value: `${other}/e` }] };
    });
    const ids = identifiersOf(tagged);
    expect(ids).toContain('arn:aws:lambda:eu-west-1:111122223333:function:orders-api');
    for (const value of ['acme-prod-assets', 'i-0123456789abcdef0', 'prod-db', 'payments-api'])
      expect(ids).not.toContain(value);
    expect(ids.filter((id) => id.includes('acme-prod-assets'))).toEqual([]);
  });

  it('leaves out numbers and strings too short to name anything', () => {
    const ids = identifiersOf(fixtureEvent('assumed-role-sdk'));
    expect(ids).not.toContain('30');
    expect(normalizeIdentifier('ab')).toEqual([]);
    expect(normalizeIdentifier('1024')).toEqual([]);
  });

  it('is bounded on a huge event, keeping resource ARNs first', () => {
    const event = withDetail('console-put-object-identity-center', (d) => {
      d.responseElements = { items: Array.from({ length: 5000 }, (_, i) => ({ id: `i-${i}`.padEnd(10, 'x') })) };
    });
    const ids = identifiersOf(event);
    expect(ids.length).toBe(IDENTIFIER_LIMITS.strings);
    expect(ids[0]).toBe('arn:aws:s3:::acme-prod-assets/config/app.json');
  });

  it('does not follow nesting deeper than its limit', () => {
    let deep: unknown = 'buried-identifier';
    for (let i = 0; i < 50; i++) deep = { next: deep };
    const event = withDetail('root', (d) => {
      d.requestParameters = { deep };
    });
    expect(identifiersOf(event)).not.toContain('buried-identifier');
  });
});
