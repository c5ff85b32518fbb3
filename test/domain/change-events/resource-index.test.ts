import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { identifiersOf } from '../../../src/domain/change-events/identifiers.js';
import {
  indexEntriesOfPlan,
  ResourceIndex,
  resourceIdentifiers,
} from '../../../src/domain/change-events/resource-index.js';
import { parsePlanJson } from '../../../src/domain/plan/schema.js';
import { fixtureEvent } from './fixtures.js';

/** A plan JSON document with the given prior state, through the real parser. */
function planWith(rootModule: unknown) {
  return parsePlanJson(
    JSON.stringify({
      format_version: '1.2',
      terraform_version: '1.9.8',
      prior_state: { values: { root_module: rootModule } },
    }),
  );
}

const assetsPlan = planWith({
  resources: [
    {
      address: 'aws_s3_bucket.assets',
      mode: 'managed',
      type: 'aws_s3_bucket',
      name: 'assets',
      values: {
        id: 'acme-prod-assets',
        arn: 'arn:aws:s3:::acme-prod-assets',
        bucket: 'acme-prod-assets',
        tags: { team: 'x' },
      },
    },
    {
      address: 'aws_s3_object.config',
      mode: 'managed',
      type: 'aws_s3_object',
      name: 'config',
      values: { id: 'config/app.json', bucket: 'acme-prod-assets', key: 'config/app.json', etag: 'abc' },
    },
    {
      address: 'data.aws_caller_identity.me',
      mode: 'data',
      type: 'aws_caller_identity',
      values: { id: '111122223333' },
    },
  ],
  child_modules: [
    {
      address: 'module.api',
      resources: [
        {
          address: 'module.api.aws_lambda_function.this',
          mode: 'managed',
          type: 'aws_lambda_function',
          name: 'this',
          values: {
            id: 'orders-api',
            arn: 'arn:aws:lambda:eu-west-1:111122223333:function:orders-api',
            function_name: 'orders-api',
            role: 'arn:aws:iam::111122223333:role/orders-api-exec',
          },
        },
      ],
    },
  ],
});

describe('resource index', () => {
  it('takes the identifier attributes of every managed resource, child modules included', () => {
    const entries = indexEntriesOfPlan(assetsPlan);
    expect(entries).toEqual([
      {
        address: 'aws_s3_bucket.assets',
        identifiers: ['acme-prod-assets', 'arn:aws:s3:::acme-prod-assets'],
      },
      {
        address: 'aws_s3_object.config',
        identifiers: ['acme-prod-assets/config/app.json', 'arn:aws:s3:::acme-prod-assets/config/app.json'],
      },
      {
        address: 'module.api.aws_lambda_function.this',
        identifiers: ['orders-api', 'arn:aws:lambda:eu-west-1:111122223333:function:orders-api'],
      },
    ]);
  });

  it('reads a real plan of an S3 object', () => {
    const plan = parsePlanJson(readFileSync(join(import.meta.dirname, '../../fixtures/plans/s3-drift.json'), 'utf8'));
    expect(indexEntriesOfPlan(plan)).toEqual([
      { address: 'aws_s3_object.report', identifiers: ['fixtures/report.txt', 'arn:aws:s3:::fixtures/report.txt'] },
    ]);
  });

  it('does not index an object by its key alone (the same key is in every bucket)', () => {
    expect(resourceIdentifiers('aws_s3_object', { id: 'index.html', key: 'index.html', bucket: 'b1' })).not.toContain(
      'index.html',
    );
  });

  it('matches an event to the stack and addresses it touched', () => {
    const index = new ResourceIndex();
    index.replaceStack('prod/assets', indexEntriesOfPlan(assetsPlan));
    index.replaceStack('prod/other', [{ address: 'aws_s3_bucket.logs', identifiers: ['acme-prod-logs'] }]);
    expect(index.match(identifiersOf(fixtureEvent('console-put-object-identity-center')))).toEqual([
      { stack: 'prod/assets', address: 'aws_s3_object.config' },
      { stack: 'prod/assets', address: 'aws_s3_bucket.assets' },
    ]);
    expect(index.match(identifiersOf(fixtureEvent('assumed-role-sdk')))).toEqual([
      { stack: 'prod/assets', address: 'module.api.aws_lambda_function.this' },
    ]);
    expect(index.match(identifiersOf(fixtureEvent('cli-iam-user')))).toEqual([]);
  });

  it("replaces a stack's entries when its new plan comes, leaving other stacks alone", () => {
    const index = new ResourceIndex();
    index.replaceStack('a', [{ address: 'aws_s3_bucket.x', identifiers: ['bucket-x', 'shared-name'] }]);
    index.replaceStack('b', [{ address: 'aws_s3_bucket.y', identifiers: ['bucket-y', 'shared-name'] }]);
    index.replaceStack('a', [{ address: 'aws_s3_bucket.z', identifiers: ['bucket-z'] }]);
    expect(index.match(['bucket-x'])).toEqual([]);
    expect(index.match(['bucket-z'])).toEqual([{ stack: 'a', address: 'aws_s3_bucket.z' }]);
    expect(index.match(['shared-name'])).toEqual([{ stack: 'b', address: 'aws_s3_bucket.y' }]);
    expect(index.size).toBe(2);
    index.removeStack('b');
    expect(index.match(['shared-name', 'bucket-y'])).toEqual([]);
    expect(index.stacks()).toEqual(['a']);
  });

  it('goes to a plain JSON array and back', () => {
    const index = new ResourceIndex();
    index.replaceStack('prod/assets', indexEntriesOfPlan(assetsPlan));
    const text = JSON.stringify(index.toJSON());
    const restored = ResourceIndex.fromJSON(JSON.parse(text));
    expect(restored.toJSON()).toEqual(index.toJSON());
    expect(restored.match(['orders-api'])).toEqual([
      { stack: 'prod/assets', address: 'module.api.aws_lambda_function.this' },
    ]);
  });

  it('refuses a persisted index that is not its own shape, naming the entry', () => {
    expect(() => ResourceIndex.fromJSON([{ stack: 'a', address: 'x', identifiers: 'nope' }])).toThrow(/identifiers/);
    expect(() => ResourceIndex.fromJSON({})).toThrow();
  });
});
