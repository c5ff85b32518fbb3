/** The shipped quiet rules (examples/policies.yml): minor tag changes, IAM warnings, ignored drift. */
import { describe, it } from 'vitest';
import { checkExampleCase, create, update, type ExampleCase } from './example-case.js';

const CASES: ExampleCase[] = [
  {
    name: 'a tag-only update is minor',
    changes: [
      update(
        'aws_s3_bucket.logs',
        { acl: 'x', tags: { Name: 'a' }, tags_all: { Name: 'a' } },
        { acl: 'x', tags: { Name: 'b' }, tags_all: { Name: 'b' } },
      ),
    ],
    fired: ['tag-only-changes-are-minor'],
    allMinor: true,
  },
  {
    name: 'a quoted tag key and tags appearing from nothing are tag-only',
    changes: [
      update('aws_s3_bucket.logs', { tags: null }, { tags: { 'team.owner': 'x' } }),
      update('aws_s3_bucket.b', { tags: { a: '1' } }, { tags: { a: '1', 'team:x': 'y' } }),
    ],
    fired: ['tag-only-changes-are-minor'],
    allMinor: true,
  },
  {
    name: 'tags and another attribute are not minor',
    changes: [update('aws_s3_bucket.logs', { acl: 'a', tags: { Name: 'a' } }, { acl: 'b', tags: { Name: 'b' } })],
    fired: [],
    allMinor: false,
  },
  {
    name: 'an attribute merely named like tags is not a tag',
    changes: [update('aws_s3_bucket.logs', { tagsx: 'a' }, { tagsx: 'b' })],
    fired: [],
    allMinor: false,
  },
  {
    name: 'a create with tags is not minor',
    changes: [create('aws_s3_bucket.logs', { tags: { Name: 'a' } })],
    fired: [],
    allMinor: false,
  },
  {
    name: 'one minor change beside a non-minor one: not all minor',
    changes: [
      update('aws_s3_bucket.a', { tags: { N: '1' } }, { tags: { N: '2' } }),
      update('aws_s3_bucket.b', { acl: 'a' }, { acl: 'b' }),
    ],
    fired: ['tag-only-changes-are-minor'],
    allMinor: false,
  },
  { name: 'no changes: not all minor', changes: [], fired: [], allMinor: false },
  {
    name: 'IAM changes warn',
    changes: [
      update('aws_iam_role.deploy', { max_session_duration: 3600 }, { max_session_duration: 7200 }),
      create('aws_iam_policy_attachment.x', {}),
    ],
    fired: ['iam-changes-warn'],
    messages: ['aws_iam_role.deploy: IAM change (update)', 'aws_iam_policy_attachment.x: IAM change (create)'],
  },
  {
    name: "the autoscaler's desired_capacity drift, and the plan setting it back, are ignored",
    drift: [
      update('aws_autoscaling_group.web', { desired_capacity: 2, max_size: 10 }, { desired_capacity: 5, max_size: 10 }),
    ],
    changes: [
      update('aws_autoscaling_group.web', { desired_capacity: 5, max_size: 10 }, { desired_capacity: 2, max_size: 10 }),
    ],
    fired: ['autoscaler-owns-desired-capacity'],
    ignored: [{ address: 'aws_autoscaling_group.web', rule: 'autoscaler-owns-desired-capacity' }],
    allMinor: false,
  },
  {
    name: 'desired_capacity with another attribute is not ignored',
    drift: [
      update('aws_autoscaling_group.web', { desired_capacity: 2, max_size: 10 }, { desired_capacity: 5, max_size: 20 }),
    ],
    fired: [],
    ignored: [],
  },
  {
    name: 'tags stamped by the cost tool are ignored; other tag drift is not',
    drift: [
      update('aws_s3_bucket.a', { tags: { Name: 'a' } }, { tags: { Name: 'a', CostCenter: '42' } }),
      update('aws_s3_bucket.b', { tags: {} }, { tags: { 'cost:owner': 'fin' }, tags_all: { 'cost:owner': 'fin' } }),
      update('aws_s3_bucket.c', { tags: { Name: 'a' } }, { tags: { Name: 'b' } }),
    ],
    fired: ['cost-tool-tags'],
    ignored: [
      { address: 'aws_s3_bucket.a', rule: 'cost-tool-tags' },
      { address: 'aws_s3_bucket.b', rule: 'cost-tool-tags' },
    ],
  },
];

describe('the shipped example policies', () => {
  it.each(CASES)('$name', checkExampleCase);
});
