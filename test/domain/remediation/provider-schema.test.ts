import { describe, expect, it } from 'vitest';
import {
  parseProviderSchema,
  ProviderSchemaError,
  sensitiveFrom,
  settableFrom,
} from '../../../src/domain/remediation/index.js';

const attr = (flags: Record<string, boolean>) => ({ type: 'string', description_kind: 'plain', ...flags });

function schemaJson(providers: Record<string, Record<string, unknown>>, extra: Record<string, unknown> = {}): string {
  const provider_schemas = Object.fromEntries(
    Object.entries(providers).map(([name, resources]) => [
      name,
      {
        provider: { version: 0, block: {} },
        resource_schemas: resources,
        data_source_schemas: { ignored: { block: { attributes: 'not read' } } },
      },
    ]),
  );
  return JSON.stringify({ format_version: '1.0', provider_schemas, ...extra });
}

const AWS = 'registry.terraform.io/hashicorp/aws';
const objectSchema = {
  version: 0,
  block: {
    attributes: {
      bucket: attr({ required: true }),
      metadata: attr({ optional: true }),
      tags_all: attr({ optional: true, computed: true }),
      version_id: attr({ computed: true }),
      secret: attr({ optional: true, sensitive: true }),
    },
    block_types: {
      rule: { nesting_mode: 'list', block: { attributes: { days: attr({ optional: true }) } }, max_items: 1 },
    },
  },
};

describe('parseProviderSchema and its lookups', () => {
  const schema = parseProviderSchema(schemaJson({ [AWS]: { aws_s3_object: objectSchema } }));

  it.each([
    ['bucket', true],
    ['metadata', true],
    ['version_id', false],
    ['tags_all', undefined],
    ['rule', undefined],
    ['missing', undefined],
    ['toString', undefined],
  ] as const)('settable %s: %s', (attribute, expected) => {
    expect(settableFrom(schema)('aws_s3_object', attribute)).toBe(expected);
  });

  it('knows sensitivity and nested blocks, not unknown types', () => {
    expect(sensitiveFrom(schema)('aws_s3_object', 'secret')).toBe(true);
    expect(sensitiveFrom(schema)('aws_s3_object', 'bucket')).toBe(false);
    expect(settableFrom(schema)('aws_s3_bucket', 'bucket')).toBeUndefined();
    expect(schema.resources.get('aws_s3_object')?.blockTypes.rule).toEqual({
      nesting: 'list',
      block: {
        attributes: { days: { required: false, optional: true, computed: false, sensitive: false } },
        blockTypes: {},
      },
    });
  });

  it('leaves a type two providers declare unknown', () => {
    const both = parseProviderSchema(
      schemaJson({ [AWS]: { aws_s3_object: objectSchema }, 'example.com/fork/aws': { aws_s3_object: objectSchema } }),
    );
    expect(settableFrom(both)('aws_s3_object', 'bucket')).toBeUndefined();
  });

  it('accepts a stack without providers', () => {
    expect(parseProviderSchema('{"format_version":"1.0"}').resources.size).toBe(0);
  });
});

describe('parseProviderSchema errors name what was wrong', () => {
  const issues = (text: string) => {
    try {
      parseProviderSchema(text);
    } catch (err) {
      expect(err).toBeInstanceOf(ProviderSchemaError);
      return (err as ProviderSchemaError).issues;
    }
    throw new Error('expected a ProviderSchemaError');
  };

  it.each([
    ['', '', /not JSON \(the text is empty\)/],
    ['{"format_version":', '', /not JSON \(syntax error\)/],
    ['{"format_version":"2.0"}', 'format_version', /unsupported format_version/],
    [
      schemaJson({ [AWS]: { aws_s3_object: { block: { attributes: { bucket: { optional: 'yes' } } } } } }),
      `provider_schemas["${AWS}"].resource_schemas.aws_s3_object.block.attributes.bucket.optional`,
      /boolean/,
    ],
    [
      schemaJson({
        [AWS]: { aws_s3_object: { block: { block_types: { rule: { nesting_mode: 'tree', block: {} } } } } },
      }),
      `provider_schemas["${AWS}"].resource_schemas.aws_s3_object.block.block_types.rule.nesting_mode`,
      /./,
    ],
  ])('%#', (text, path, message) => {
    const [issue] = issues(text);
    expect(issue?.path).toBe(path);
    expect(issue?.message).toMatch(message);
  });
});
