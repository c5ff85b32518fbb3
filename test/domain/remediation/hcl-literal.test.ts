/**
 * hclLiteral must produce what `terraform fmt` leaves alone and what terraform reads back as the same
 * value: every case is checked by real terraform, as the input of a terraform_data resource.
 */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { hclLiteral } from '../../../src/domain/remediation/index.js';
import { fmtDiff, useTerraformEnv, validateStack } from './terraform-checks.js';

const cases: { name: string; value: unknown; hcl: string }[] = [
  { name: 'plain string', value: 'web', hcl: '"web"' },
  { name: 'escapes', value: 'a"b\\c\nd\te\r', hcl: '"a\\"b\\\\c\\nd\\te\\r"' },
  { name: 'template sequences', value: '${var.x} %{if} $x %y $${', hcl: '"$${var.x} %%{if} $x %y $$${"' },
  { name: 'control character', value: '\u0001', hcl: '"\\u0001"' },
  { name: 'unicode stays', value: 'é ☃', hcl: '"é ☃"' },
  { name: 'integer', value: 42, hcl: '42' },
  { name: 'negative float', value: -1.5, hcl: '-1.5' },
  { name: 'exponent', value: 1e21, hcl: '1e+21' },
  { name: 'bool', value: false, hcl: 'false' },
  { name: 'null', value: null, hcl: 'null' },
  { name: 'empty list', value: [], hcl: '[]' },
  { name: 'list of scalars', value: ['a', 1, true], hcl: '["a", 1, true]' },
  { name: 'empty map', value: {}, hcl: '{}' },
  {
    name: 'map with aligned and quoted keys',
    value: { Name: 'x', 'kubernetes.io/role': 'web', for: 1, 'with space': 2 },
    hcl: '{\n  Name                 = "x"\n  "kubernetes.io/role" = "web"\n  "for"                = 1\n  "with space"         = 2\n}',
  },
  {
    name: 'multi-line entries break the alignment run',
    value: { a: 1, nested: { deep: [1, 2] }, longer_key: 'x', list: [{ k: 'v' }, 'y'] },
    hcl: '{\n  a = 1\n  nested = {\n    deep = [1, 2]\n  }\n  longer_key = "x"\n  list = [\n    {\n      k = "v"\n    },\n    "y",\n  ]\n}',
  },
];

describe('hclLiteral', () => {
  const env = useTerraformEnv('driftgate-hcl-literal-');

  it.each(cases)('$name', ({ value, hcl }) => {
    expect(hclLiteral(value)).toBe(hcl);
  });

  it('indents nested lines from the given indentation', () => {
    expect(hclLiteral({ a: [{ b: 1 }] }, '    ')).toBe(
      '{\n      a = [\n        {\n          b = 1\n        },\n      ]\n    }',
    );
  });

  it('refuses values with no literal', () => {
    expect(() => hclLiteral(Number.NaN)).toThrow(RangeError);
    expect(() => hclLiteral(() => 1)).toThrow(TypeError);
  });

  it('every case is fmt-clean and reads back as the same value in terraform (apply, then compare)', async () => {
    const resources = cases.map(
      (c, i) => `resource "terraform_data" "case_${i}" {\n  input = ${hclLiteral(c.value, '  ')}\n}\n`,
    );
    const outputs = cases.map(
      (c, i) =>
        `output "case_${i}" {\n  value = terraform_data.case_${i}.input == jsondecode(${hclLiteral(JSON.stringify(c.value), '  ')})\n}\n`,
    );
    const text = [...resources, ...outputs].join('\n');
    expect(await fmtDiff(env(), text)).toBe('');
    const dir = await validateStack(env(), 'literals', text);
    await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], { cwd: dir, env: env().env });
    const { stdout } = await execa('terraform', ['output', '-json'], { cwd: dir, env: env().env });
    const equal = Object.entries(JSON.parse(stdout) as Record<string, { value: unknown }>).map(([k, o]) => [
      k,
      o.value,
    ]);
    expect(Object.fromEntries(equal)).toEqual(Object.fromEntries(cases.map((_, i) => [`case_${i}`, true])));
  });
});
