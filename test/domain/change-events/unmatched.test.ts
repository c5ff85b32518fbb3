import { describe, expect, it } from 'vitest';
import { namedResources, UNMATCHED_LIMITS } from '../../../src/domain/change-events/unmatched.js';
import { fixtureEvent, withDetail } from './fixtures.js';

describe('namedResources', () => {
  it.each([
    ['console-put-bucket-tagging-identity-center', ['arn:aws:s3:::acme-prod-assets']],
    ['console-put-object-identity-center', ['arn:aws:s3:::acme-prod-assets/config/app.json']],
    ['cli-iam-user', ['sg-0a1b2c3d4e5f60718']],
    ['assumed-role-sdk', ['orders-api']],
  ] as const)('%s names %j', (fixture, expected) => {
    expect(namedResources(fixtureEvent(fixture))).toEqual(expect.arrayContaining([...expected]));
  });

  it('keeps no request values: tags, rules and policies stay out, only identifiers by name', () => {
    const named = namedResources(
      withDetail('cli-iam-user', (detail) => {
        detail.requestParameters = {
          groupId: 'sg-0a1b2c3d4e5f60718',
          description: 'opened for the demo',
          policyDocument: '{"Statement":[{"Effect":"Allow"}]}',
          userName: 'has a space',
          tagSpecificationSet: { items: [{ tags: [{ key: 'owner', value: 'secret-team' }] }] },
          instanceIds: ['i-0123456789abcdef0', 'i-0fedcba9876543210'],
        };
      }),
    );
    expect(named).toEqual(['sg-0a1b2c3d4e5f60718', 'i-0123456789abcdef0', 'i-0fedcba9876543210']);
    const ids = JSON.stringify(namedResources(fixtureEvent('console-put-bucket-tagging-identity-center')));
    expect(ids).not.toContain('temporary-fix');
  });

  it('names at most a few, resource ARNs first', () => {
    const named = namedResources(
      withDetail('cli-iam-user', (detail) => {
        detail.resources = [{ ARN: 'arn:aws:ec2:eu-west-1:111122223333:security-group/sg-1' }];
        detail.requestParameters = {
          instanceIds: Array.from({ length: 50 }, (_, i) => `i-${String(i).padStart(8, '0')}a`),
        };
      }),
    );
    expect(named).toHaveLength(UNMATCHED_LIMITS.resources);
    expect(named[0]).toBe('arn:aws:ec2:eu-west-1:111122223333:security-group/sg-1');
  });
});
