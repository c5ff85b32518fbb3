/**
 * Table-driven over the tricky files in test/fixtures/hcl: every rewrite is compared byte-for-byte with
 * the fixture after the expected replacements, then checked by real terraform (`fmt -check` always,
 * `init` + `validate` for the terraform_data files, then `apply` to read the value back); every refusal
 * must name what it found and its line.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type AttributeEdit, rewriteAttribute } from '../../../src/domain/remediation/index.js';
import { appliedInput, fmtDiff, useTerraformEnv, validateStack } from './terraform-checks.js';

const FIXTURES = new URL('../../fixtures/hcl/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES), 'utf8');
/** Files terraform can validate offline (built-in provider only). */
const VALIDATABLE = new Set(['data-stack.tf', 'crlf.tf']);

type Edit = Omit<AttributeEdit, 'resourceType'> & { resourceType?: string };
interface Rewrite extends Omit<AttributeEdit, 'resourceType' | 'resourceName'> {
  name: string;
  file: string;
  /** `type.name` of the resource. */
  at: string;
  /** [before, after] pairs applied to the fixture, each `before` occurring exactly once. */
  expect: [string, string][];
}

/** Rows of one fixture file. */
function inFile(file: string, rows: Omit<Rewrite, 'file'>[]): Rewrite[] {
  return rows.map((r) => ({ ...r, file }));
}

const rewrites: Rewrite[] = [
  ...inFile('s3-objects.tf', [
    {
      name: 'top-level string next to a trailing comment',
      at: 'aws_s3_object.site',
      path: ['content_type'],
      value: 'text/html',
      expect: [['content_type = "text/plain" //', 'content_type = "text/html" //']],
    },
    {
      name: 'number',
      at: 'aws_s3_object.site',
      path: ['cache'],
      value: 3600,
      expect: [['cache        = 300', 'cache        = 3600']],
    },
    {
      name: 'bool to null',
      at: 'aws_s3_object.site',
      path: ['public'],
      value: null,
      expect: [['public       = false', 'public       = null']],
    },
    {
      name: 'string with quotes, templates and a newline is escaped',
      at: 'aws_s3_object.site',
      path: ['note'],
      value: 'say "hi" ${x} %{y} \\ #\n',
      expect: [['"has # and // and } inside"', '"say \\"hi\\" $${x} %%{y} \\\\ #\\n"']],
    },
    {
      name: 'quoted key of a map',
      at: 'aws_s3_object.site',
      path: ['metadata', 'x-amz-meta'],
      value: 'two',
      expect: [['"x-amz-meta" = "one"', '"x-amz-meta" = "two"']],
    },
    {
      name: 'key with a slash in tags',
      at: 'aws_s3_object.site',
      path: ['tags', 'kubernetes.io/role'],
      value: 'api',
      expect: [['"kubernetes.io/role" = "web"', '"kubernetes.io/role" = "api"']],
    },
    {
      name: 'new key in a multi-line map, aligned with its neighbours',
      at: 'aws_s3_object.site',
      path: ['tags', 'Team'],
      value: 'web-team',
      expect: [
        ['"kubernetes.io/role" = "web"\n', '"kubernetes.io/role" = "web"\n    Team                 = "web-team"\n'],
      ],
    },
    {
      name: 'whole map replaced',
      at: 'aws_s3_object.site',
      path: ['tags'],
      value: { Name: 'site', 'kubernetes.io/role': 'web', Team: 'a' },
      expect: [['"kubernetes.io/role" = "web"\n', '"kubernetes.io/role" = "web"\n    Team                 = "a"\n']],
    },
    {
      // fmt sees a heredoc as part of its attribute's line, so the new line joins that `=` run.
      name: 'missing attribute goes after the last one (a heredoc holding braces)',
      at: 'aws_s3_object.site',
      path: ['storage_class'],
      value: 'STANDARD',
      expect: [
        ['  content = <<EOF', '  content       = <<EOF'],
        ['}\nEOF\n}', '}\nEOF\n  storage_class = "STANDARD"\n}'],
      ],
    },
    {
      name: 'same name, other type',
      at: 'aws_s3_bucket.site',
      path: ['content_type'],
      value: 'x',
      expect: [['content_type = "not-an-object"', 'content_type = "x"']],
    },
    {
      name: 'new key in a one-line map makes it multi-line and breaks the alignment run',
      at: 'aws_s3_object.compact',
      path: ['tags', 'Owner'],
      value: 'me',
      expect: [
        [
          '  tags   = { Name = "compact", Env = "dev" }\n  list   = ["a", "b"]',
          '  tags = {\n    Name  = "compact"\n    Env   = "dev"\n    Owner = "me"\n  }\n  list = ["a", "b"]',
        ],
      ],
    },
    {
      name: 'list of strings',
      at: 'aws_s3_object.compact',
      path: ['list'],
      value: ['a', 'b', 'c'],
      expect: [['list   = ["a", "b"]', 'list   = ["a", "b", "c"]']],
    },
    {
      name: 'attribute into an empty one-line block',
      at: 'aws_s3_object.empty',
      path: ['bucket'],
      value: 'b',
      expect: [['"empty" {}', '"empty" {\n  bucket = "b"\n}']],
    },
  ]),
  ...inFile('security-group.tf', [
    {
      name: 'attribute in the single block of its type, by position',
      at: 'aws_security_group.web',
      path: ['egress', 0, 'cidr_blocks'],
      value: ['0.0.0.0/0', '10.0.0.0/8'],
      expect: [['cidr_blocks = ["0.0.0.0/0"]', 'cidr_blocks = ["0.0.0.0/0", "10.0.0.0/8"]']],
    },
    {
      name: 'attribute in one of several blocks when the schema says they are ordered',
      at: 'aws_security_group.web',
      path: ['ingress', 1, 'to_port'],
      value: 8080,
      orderedBlocks: true,
      expect: [['to_port     = 80\n', 'to_port     = 8080\n']],
    },
    {
      name: 'new attribute in a nested block realigns the run',
      at: 'aws_security_group.web',
      path: ['timeouts', 'read'],
      value: '1m',
      expect: [['    create = "5m"\n', '    create = "5m"\n    read   = "1m"\n']],
    },
    {
      name: 'nested block without index',
      at: 'aws_instance.app',
      path: ['root_block_device', 'volume_size'],
      value: 20,
      expect: [['volume_size = 8', 'volume_size = 20']],
    },
  ]),
  ...inFile('data-stack.tf', [
    {
      name: 'longer value moves the trailing comments of its run',
      at: 'terraform_data.app',
      path: ['input', 'name'],
      value: 'application',
      expect: [
        ['"app" # display name', '"application" # display name'],
        ['2     # scaled by hand', '2             # scaled by hand'],
      ],
    },
    {
      name: 'nested map value',
      at: 'terraform_data.app',
      path: ['input', 'limits', 'cpu'],
      value: '1',
      expect: [['cpu    = "500m"', 'cpu    = "1"']],
    },
    {
      name: 'list element',
      at: 'terraform_data.app',
      path: ['input', 'ports', 1],
      value: 8443,
      expect: [['[80, 443]', '[80, 8443]']],
    },
    {
      name: 'new longer key realigns the existing entry',
      at: 'terraform_data.app',
      path: ['input', 'labels', 'owner'],
      value: 'blue',
      expect: [['      tier = "front"\n', '      tier  = "front"\n      owner = "blue"\n']],
    },
    {
      name: 'new key holding a nested value',
      at: 'terraform_data.app',
      path: ['input', 'extra'],
      value: { list: [1, { ok: true }], 'a.b': 'c' },
      expect: [
        [
          '      tier = "front"\n    }\n',
          '      tier = "front"\n    }\n    extra = {\n      list = [\n        1,\n        {\n          ok = true\n        },\n      ]\n      "a.b" = "c"\n    }\n',
        ],
      ],
    },
    {
      name: 'scalar replaced by a map',
      at: 'terraform_data.other',
      path: ['input'],
      value: { for: 1, Name: 'x' },
      expect: [['input            = "plain"\n', 'input = {\n    "for" = 1\n    Name  = "x"\n  }\n']],
    },
  ]),
  ...inFile('crlf.tf', [
    {
      name: 'CRLF file: new key keeps CRLF',
      at: 'terraform_data.crlf',
      path: ['input', 'Owner'],
      value: 'x',
      expect: [
        ['    Team = "web"\r\n    Env  = "dev"\r\n', '    Team  = "web"\r\n    Env   = "dev"\r\n    Owner = "x"\r\n'],
      ],
    },
    {
      name: 'CRLF file: multi-line value keeps CRLF',
      at: 'terraform_data.plain',
      path: ['input'],
      value: { a: 'b' },
      expect: [['  input = "x"\r\n', '  input = {\r\n    a = "b"\r\n  }\r\n']],
    },
  ]),
];

interface Refusal {
  file: string;
  edit: Edit;
  reason: RegExp;
}

const refusals: Refusal[] = [
  {
    file: 's3-objects.tf',
    edit: { resourceName: 'computed', path: ['bucket'], value: 'x' },
    reason: /reference to var\.team \(line 49\)/,
  },
  {
    file: 's3-objects.tf',
    edit: { resourceName: 'computed', path: ['key'], value: 'x' },
    reason: /reference to local\.owner \(line 50\)/,
  },
  {
    file: 's3-objects.tf',
    edit: { resourceName: 'computed', path: ['content_type'], value: 'x' },
    reason: /template with interpolation .*\(line 51\)/,
  },
  {
    file: 's3-objects.tf',
    edit: { resourceName: 'computed', path: ['metadata', 'a'], value: 2 },
    reason: /function call jsonencode\(\.\.\.\) \(line 52\)/,
  },
  {
    file: 's3-objects.tf',
    edit: { resourceName: 'computed', path: ['cache_control'], value: 'x' },
    reason: /heredoc \(line 53\)/,
  },
  {
    file: 's3-objects.tf',
    edit: { resourceName: 'computed', path: ['tags', 'Other'], value: 'x' },
    reason: /reference to var\.team \(line 57\)/,
  },
  {
    file: 's3-objects.tf',
    edit: { resourceName: 'computed', path: ['source'], value: 'x' },
    reason: /function call format\(\.\.\.\) \(line 58\)/,
  },
  {
    file: 's3-objects.tf',
    edit: { resourceName: 'computed', path: ['etag'], value: 'x' },
    reason: /an expression .*\(line 59\)/,
  },
  {
    file: 's3-objects.tf',
    edit: { resourceName: 'site', path: ['content'], value: 'x' },
    reason: /heredoc \(line 34\)/,
  },
  {
    file: 's3-objects.tf',
    edit: { resourceName: 'site', path: ['metadata'], value: {} },
    reason: /comments inside its value \(line 24\)/,
  },
  {
    file: 's3-objects.tf',
    edit: { resourceName: 'site', path: ['tags', 'Name', 'x'], value: 1 },
    reason: /does not index a single value \(line 30\)/,
  },
  {
    file: 's3-objects.tf',
    edit: { resourceName: 'missing', path: ['bucket'], value: 'x' },
    reason: /no resource aws_s3_object\.missing/,
  },
  {
    file: 'security-group.tf',
    edit: { resourceType: 'aws_security_group', resourceName: 'web', path: ['ingress', 0, 'to_port'], value: 1 },
    reason: /2 ingress blocks \(lines 4, 10\).*ambiguous/,
  },
  {
    file: 'security-group.tf',
    edit: { resourceType: 'aws_security_group', resourceName: 'web', path: ['ingress'], value: [] },
    reason: /2 ingress blocks/,
  },
  {
    file: 'security-group.tf',
    edit: { resourceType: 'aws_security_group', resourceName: 'web', path: ['timeouts'], value: {} },
    reason: /whole timeouts block/,
  },
  {
    file: 'security-group.tf',
    edit: { resourceType: 'aws_instance', resourceName: 'app', path: ['ebs_block_device', 0, 'volume_size'], value: 1 },
    reason: /dynamic block \(line 35\)/,
  },
  {
    file: 'security-group.tf',
    edit: { resourceType: 'aws_instance', resourceName: 'fleet', path: ['ami'], value: 'x' },
    reason: /has count \(line 44\).*every instance/,
  },
  {
    file: 'data-stack.tf',
    edit: { resourceType: 'terraform_data', resourceName: 'app_ref', path: ['input'], value: 1 },
    reason: /reference to terraform_data\.app \(line 25\)/,
  },
  {
    file: 'data-stack.tf',
    edit: { resourceType: 'terraform_data', resourceName: 'other', path: ['triggers_replace', 5], value: 'x' },
    reason: /has 2 items, not 6/,
  },
];

function expected(source: string, pairs: [string, string][]): string {
  let out = source;
  for (const [before, after] of pairs) {
    const crlf = source.includes('\r\n') ? before : before.replace(/\r\n/g, '\n');
    expect(out.split(crlf).length, `"${before}" occurs once`).toBe(2);
    out = out.replace(crlf, () => after);
  }
  return out;
}

describe('rewriteAttribute', () => {
  const env = useTerraformEnv('driftgate-remediation-');

  it.each(Object.keys({ 's3-objects.tf': 1, 'security-group.tf': 1, 'data-stack.tf': 1, 'crlf.tf': 1 }))(
    'fixture %s is fmt-clean to begin with',
    async (file) => {
      expect(await fmtDiff(env(), fixture(file))).toBe('');
    },
  );

  it.each(rewrites.map((r, index) => ({ ...r, index })))(
    '$file: $name',
    async ({ file, at, expect: pairs, name: _, index, ...edit }) => {
      const source = fixture(file);
      const [resourceType = '', resourceName = ''] = at.split('.');
      const result = rewriteAttribute(source, { resourceType, resourceName, ...edit });
      if (!result.ok) throw new Error(result.reason);
      expect(result.text).toBe(expected(source, pairs));
      expect(await fmtDiff(env(), result.text)).toBe('');
      if (!VALIDATABLE.has(file)) return;
      const dir = await validateStack(env(), `case-${index}`, result.text);
      if (edit.path[0] === 'input') {
        const stored = await appliedInput(env(), dir, resourceName);
        expect(
          edit.path.slice(1).reduce<unknown>((v, key) => (v as Record<string | number, unknown>)[key], stored),
        ).toEqual(edit.value);
      }
    },
  );

  const titled = refusals.map((r) => ({ ...r, title: `${r.edit.resourceName}.${r.edit.path.join('.')}` }));
  it.each(titled)('$file: refuses $title', ({ file, edit, reason }) => {
    const result = rewriteAttribute(fixture(file), { resourceType: 'aws_s3_object', ...edit });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('the terraform checks can fail', async () => {
    expect(await fmtDiff(env(), 'resource "terraform_data" "x" {\n  input  = 1\n}\n')).not.toBe('');
    await expect(validateStack(env(), 'broken', 'resource "terraform_data" "x" {\n  nope = 1\n}\n')).rejects.toThrow(
      /Unsupported argument/,
    );
  });

  it('leaves misaligned runs elsewhere as they were', () => {
    const source = 'resource "a" "b" {\n  x    = 1\n  yy = 2\n\n  z = "old"\n}\n\nresource "a" "c" {\n  p     = 1\n}\n';
    const result = rewriteAttribute(source, { resourceType: 'a', resourceName: 'b', path: ['z'], value: 'new' });
    expect(result).toEqual({ ok: true, text: source.replace('"old"', '"new"') });
  });

  it('never throws on a truncated file', () => {
    const source = fixture('s3-objects.tf');
    for (let end = 0; end <= source.length; end += 7) {
      const text = source.slice(0, end);
      for (const path of [['tags', 'Team'], ['content_type'], ['metadata']]) {
        const result = rewriteAttribute(text, {
          resourceType: 'aws_s3_object',
          resourceName: 'site',
          path,
          value: 'v',
        });
        expect(typeof result.ok).toBe('boolean');
      }
    }
  });

  it('refuses a resource declared twice', () => {
    const twice = 'resource "a" "b" {\n  x = 1\n}\n\nresource "a" "b" {\n  x = 2\n}\n';
    expect(rewriteAttribute(twice, { resourceType: 'a', resourceName: 'b', path: ['x'], value: 3 })).toEqual({
      ok: false,
      reason: 'a.b is declared 2 times (lines 1, 5)',
    });
  });
});
