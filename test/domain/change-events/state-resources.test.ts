import { describe, expect, it } from 'vitest';
import { sameState, stateResources } from '../../../src/domain/change-events/state-resources.js';

/** A raw state as `terraform state pull` prints it (format 4), cut to what the index reads. */
const state = {
  version: 4,
  terraform_version: '1.9.8',
  serial: 7,
  lineage: '3f1c-lineage',
  outputs: {},
  resources: [
    {
      mode: 'managed',
      type: 'aws_s3_bucket',
      name: 'logs',
      provider: 'provider["registry.terraform.io/hashicorp/aws"]',
      instances: [
        { schema_version: 0, attributes: { id: 'acme-logs', bucket: 'acme-logs', arn: 'arn:aws:s3:::acme-logs' } },
      ],
    },
    {
      module: 'module.site',
      mode: 'managed',
      type: 'aws_s3_object',
      name: 'page',
      instances: [
        { index_key: 'index', attributes: { id: 'index.html', bucket: 'acme-site', key: 'index.html' } },
        { index_key: 'about', attributes: { id: 'about.html', bucket: 'acme-site', key: 'about.html' } },
      ],
    },
    { mode: 'managed', type: 'aws_iam_role', name: 'ci', instances: [{ index_key: 0, attributes: { name: 'ci' } }] },
    // Data sources read, they are not managed: a change to them is no stack's drift.
    { mode: 'data', type: 'aws_s3_bucket', name: 'shared', instances: [{ attributes: { id: 'shared-bucket' } }] },
  ],
};

describe('resources from a raw state', () => {
  it('names each managed instance by its full address, keyed by the identifiers events use', () => {
    const found = stateResources(state);
    expect(found.version).toEqual({ serial: 7, lineage: '3f1c-lineage' });
    expect(found.resources).toEqual([
      { address: 'aws_s3_bucket.logs', identifiers: ['acme-logs', 'arn:aws:s3:::acme-logs'] },
      {
        address: 'module.site.aws_s3_object.page["index"]',
        identifiers: ['acme-site/index.html', 'arn:aws:s3:::acme-site/index.html'],
      },
      {
        address: 'module.site.aws_s3_object.page["about"]',
        identifiers: ['acme-site/about.html', 'arn:aws:s3:::acme-site/about.html'],
      },
      // Too short to be told from other strings in an event (IDENTIFIER_LIMITS.minLength is 3): "ci" is kept out.
    ]);
  });

  it('tells a moved state from the one indexed, and refuses what is not a state', () => {
    expect(sameState({ serial: 7, lineage: '3f1c-lineage' }, { serial: 7, lineage: '3f1c-lineage' })).toBe(true);
    expect(sameState({ serial: 7, lineage: '3f1c-lineage' }, { serial: 8, lineage: '3f1c-lineage' })).toBe(false);
    expect(sameState({ serial: 7, lineage: 'other' }, { serial: 7, lineage: '3f1c-lineage' })).toBe(false);
    // Indexed from a plan's prior state: no serial, so the next state read indexes again.
    expect(sameState({}, { serial: 7, lineage: '3f1c-lineage' })).toBe(false);
    expect(() => stateResources({ version: 4, resources: [] })).toThrow(/serial/);
  });
});
