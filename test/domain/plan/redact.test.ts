import { describe, expect, it } from 'vitest';
import { SENSITIVE_PLACEHOLDER as S } from '../../../src/domain/plan/model.js';
import { collectSecrets, createRedactor } from '../../../src/domain/plan/redact.js';
import { parsePlanJson } from '../../../src/domain/plan/schema.js';
import { FIXTURE_SECRETS } from '../../fixtures/plans/make-fixtures.js';
import { planText, readFixture, resourceChange } from './plan-builder.js';

describe('collectSecrets', () => {
  it('finds marked values nested in maps and lists, and whole-object marks', () => {
    const plan = parsePlanJson(
      planText({
        resource_changes: [
          resourceChange({
            address: 'terraform_data.a',
            actions: ['update'],
            before: {
              tags: { public: 'p1', private: 'map-secret-1' },
              list: ['l0', 'list-secret-1'],
              blob: { x: 'obj-secret-1', y: ['obj-secret-2'] },
            },
            before_sensitive: { tags: { private: true }, list: [false, true], blob: true },
            after: { n: 5, deep: [{ k: 'deep-secret-1' }] },
            after_sensitive: { n: true, deep: [{ k: true }] },
          }),
        ],
        resource_drift: [
          resourceChange({
            address: 'terraform_data.b',
            actions: ['update'],
            before: { input: 'drift-secret-1' },
            before_sensitive: { input: true },
          }),
        ],
      }),
    );
    expect([...collectSecrets(plan)].sort()).toEqual(
      [5, 'deep-secret-1', 'drift-secret-1', 'list-secret-1', 'map-secret-1', 'obj-secret-1', 'obj-secret-2'].sort(),
    );
  });

  it('finds sensitive outputs, sensitive variables (root values, defaults, module-call constants) and state values', () => {
    const plan = parsePlanJson(
      planText({
        variables: { pw: { value: 'root-var-secret' }, plain: { value: 'not-secret' } },
        output_changes: {
          out: {
            actions: ['update'],
            before: 'out-before',
            after: 'out-after',
            before_sensitive: true,
            after_sensitive: true,
          },
          open: {
            actions: ['no-op'],
            before: 'visible',
            after: 'visible',
            before_sensitive: false,
            after_sensitive: false,
          },
        },
        prior_state: {
          values: {
            outputs: { old: { sensitive: true, value: 'state-output-secret' } },
            root_module: {
              child_modules: [
                {
                  resources: [
                    {
                      address: 'module.m.x.y',
                      mode: 'managed',
                      values: { a: 'state-res-secret' },
                      sensitive_values: { a: true },
                    },
                  ],
                },
              ],
            },
          },
        },
        configuration: {
          root_module: {
            variables: {
              pw: { sensitive: true },
              plain: {},
              with_default: { sensitive: true, default: { k: 'default-secret' } },
            },
            module_calls: {
              app: {
                expressions: {
                  token: { constant_value: 'module-const-secret' },
                  name: { constant_value: 'module-plain' },
                },
                module: {
                  variables: { token: { sensitive: true }, name: {} },
                  module_calls: {
                    inner: {
                      expressions: { key: { constant_value: 'inner-const-secret' } },
                      module: { variables: { key: { sensitive: true } } },
                    },
                  },
                },
              },
            },
          },
        },
      }),
    );
    expect([...collectSecrets(plan)].sort()).toEqual(
      [
        'default-secret',
        'inner-const-secret',
        'module-const-secret',
        'out-after',
        'out-before',
        'root-var-secret',
        'state-output-secret',
        'state-res-secret',
      ].sort(),
    );
  });

  it('finds every secret of the real fixture', () => {
    const secrets = collectSecrets(parsePlanJson(readFixture('data-changes.json')));
    for (const secret of [FIXTURE_SECRETS.passwordV1, FIXTURE_SECRETS.passwordV2, FIXTURE_SECRETS.moduleToken])
      expect(secrets).toContain(secret);
  });
});

describe('createRedactor', () => {
  const cases: [string, string[], string, string][] = [
    ['a secret inside text', ['s3cr3t-value'], 'token=s3cr3t-value;', `token=${S};`],
    ['every occurrence', ['abcd1234'], 'abcd1234 and abcd1234', `${S} and ${S}`],
    [
      'overlapping secrets, longest first',
      ['pass-1234', 'password-1234'],
      'x password-1234 y pass-1234',
      `x ${S} y ${S}`,
    ],
    ['a secret that is the suffix of another', ['word1234', 'password1234'], 'password1234', S],
    ['overlapping occurrences as their union', ['abcdef-1', 'ef-1ghij'], 'xabcdef-1ghijy abcdef-1', `x${S}y ${S}`],
    ['adjacent occurrences', ['abcd-123', 'efgh-456'], 'abcd-123efgh-456', `${S}${S}`],
    ['regex syntax in a secret', ['a.b*c+(d)[e]{f}|g\\h/i^$?'], 'k=a.b*c+(d)[e]{f}|g\\h/i^$?!', `k=${S}!`],
    ['regex syntax does not match other text', ['a.bc-1234'], 'axbc-1234', 'axbc-1234'],
    ['a JSON-escaped copy', ['line1\nline"2'], '{"v":"line1\\nline\\"2"}', `{"v":"${S}"}`],
    [
      'a copy inside a jsonencode()d string (< > & as \\u escapes)',
      ['pa<ss>&word-7f3a'],
      '{"Condition":{"aws:Tag":"pa\\u003css\\u003e\\u0026word-7f3a"}}',
      `{"Condition":{"aws:Tag":"${S}"}}`,
    ],
    ['unicode', ['пароль-🔑-key'], 'x пароль-🔑-key y', `x ${S} y`],
    ['short secrets only when whole', ['80', 'eu'], 'port 80 in eu', 'port 80 in eu'],
    ['plain words only when whole', ['password', 'admin'], 'password for admin', 'password for admin'],
    ['any long value inside text', ['abcdefghijklmnop'], 'x=abcdefghijklmnop', `x=${S}`],
    ['a short secret as the whole text', ['80'], '80', S],
    ['an empty secret is ignored', [''], 'anything', 'anything'],
  ];

  // Few secrets are searched with indexOf, many with an automaton: both must agree.
  const padding = Array.from({ length: 20 }, (_, i) => `unrelated-padding-${i}`);
  it.each(cases)('redacts %s', (_, secrets, text, expected) => {
    expect(createRedactor(secrets).redact(text)).toBe(expected);
    expect(createRedactor([...secrets, ...padding]).redact(text)).toBe(expected);
  });

  it('searches text only for distinctive secrets: 8+ characters of two kinds, or 16+', () => {
    const r = createRedactor(['abcdefg1', 'abcdefgh', 'abc-12', 'abcdefghijklmnop']);
    expect(r.redact('xabcdefg1x')).toBe(`x${S}x`);
    expect(r.redact('xabcdefghx')).toBe('xabcdefghx');
    expect(r.redact('xabc-12x')).toBe('xabc-12x');
    expect(r.redact('xabcdefghijklmnopx')).toBe(`x${S}x`);
    expect(r.size).toBe(4);
  });

  it('masks structured values by equality and substring, keys too, without touching the input', () => {
    const r = createRedactor(['top-secret', 'sk']);
    const input = {
      a: 'top-secret',
      b: ['x-top-secret-y', 3, true, null],
      c: { 'top-secret': 'sk', d: 'skip', sk: 1 },
    };
    const copy = structuredClone(input);
    expect(r.redactValue(input)).toEqual({ a: S, b: [`x-${S}-y`, 3, true, null], c: { [S]: S, d: 'skip', sk: 1 } });
    expect(input).toEqual(copy);
  });

  it('returns values unchanged when there is no secret', () => {
    const r = createRedactor([]);
    const value = { a: 'x' };
    expect(r.redactValue(value)).toBe(value);
    expect(r.redact('text')).toBe('text');
    expect(r.size).toBe(0);
  });

  it('handles many secrets and long ones in one pass', () => {
    const secrets = Array.from({ length: 5000 }, (_, i) => `secret-${i}-${'x'.repeat(i % 7)}`);
    const pem = `-----BEGIN KEY-----${'A'.repeat(50_000)}-----END KEY-----`;
    const r = createRedactor([...secrets, pem]);
    const text = `${secrets[4321]} | ${pem} | secret-none`;
    expect(r.redact(text)).toBe(`${S} | ${S} | secret-none`);
  });
});
