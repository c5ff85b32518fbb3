import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { interpolate } from '../../src/config/interpolate.js';
import { parseConfig, validateConfigText } from '../../src/config/load.js';
import { ConfigError } from '../../src/domain/errors.js';

const baseDir = tmpdir();

describe('interpolate', () => {
  it.each([
    ['${A}', { A: 'x' }, 'x'],
    ['pre-${A}-${B}-post', { A: '1', B: '2' }, 'pre-1-2-post'],
    ['${MISSING:-fallback}', {}, 'fallback'],
    ['${EMPTY:-fallback}', { EMPTY: '' }, 'fallback'],
    ['${EMPTY}', { EMPTY: '' }, ''],
    ['${SET:-fallback}', { SET: 'v' }, 'v'],
    ['${A:-}', {}, ''],
    ['${A:-with spaces: and colons}', {}, 'with spaces: and colons'],
    ['$${A}', { A: 'x' }, '${A}'],
    // A lone "$" stays; the "$${" after it is the escape.
    ['$$${A}', { A: 'x' }, '$${A}'],
    ['cost $5 and $HOME', { HOME: '/root' }, 'cost $5 and $HOME'],
    ['no vars', {}, 'no vars'],
  ])('%s -> %s', (input, env, expected) => {
    const result = interpolate({ key: input }, env);
    expect(result.issues).toEqual([]);
    expect(result.value).toEqual({ key: expected });
  });

  it('walks nested lists and maps but leaves keys and non-strings alone', () => {
    const doc = { '${K}': [1, true, null, { deep: '${V}' }] };
    expect(interpolate(doc, { K: 'no', V: 'yes' }).value).toEqual({ '${K}': [1, true, null, { deep: 'yes' }] });
  });

  it.each([
    ['${A', 'unterminated "${" (write "$${" for a literal "${")'],
    ['${}', 'invalid variable reference "${}": names use letters, digits and "_" (write "$${" for a literal "${")'],
    ['${1X}', 'invalid variable reference "${1X}": names use letters, digits and "_" (write "$${" for a literal "${")'],
  ])('rejects malformed reference %s', (input, message) => {
    expect(interpolate({ a: [input] }, {}).issues).toEqual([{ path: 'a[0]', message }]);
  });
});

describe('interpolation in config files', () => {
  it('names the variable and the path of a missing variable, and nothing else there', async () => {
    const text =
      'version: 1\nstacks:\n  - { name: a, dir: a }\n  - name: b\n    dir: b\n    env:\n      TOKEN: "${TOKEN}"\n';
    const result = await validateConfigText(text, { baseDir, env: {} });
    expect(result.issues).toEqual([
      { path: 'stacks[1].env.TOKEN', message: 'environment variable "TOKEN" is not set' },
    ]);
  });

  it('quotes keys that are not plain identifiers in the path', async () => {
    const result = await validateConfigText(
      'version: 1\nstacks:\n  - { name: a, dir: a, vars: { "a.b": "${NOPE}" } }\n',
      {
        baseDir,
        env: {},
      },
    );
    expect(result.issues).toEqual([
      { path: 'stacks[0].vars["a.b"]', message: 'environment variable "NOPE" is not set' },
    ]);
  });

  it('does not repeat a schema issue at a path that failed to interpolate', async () => {
    const result = await validateConfigText(
      'version: 1\nstacks: [{ name: a, dir: a }]\ndefaults: { schedule: "${SCHEDULE}" }\n',
      {
        baseDir,
        env: {},
      },
    );
    expect(result.issues).toEqual([
      { path: 'defaults.schedule', message: 'environment variable "SCHEDULE" is not set' },
    ]);
  });

  it('substitutes values and defaults in the loaded config', async () => {
    const text =
      'version: 1\ndataDir: "${DATA:-/var/lib/driftgate}"\nstacks:\n  - { name: "${ENV}/app", dir: "stacks/${ENV}", vars: { literal: "$${not.interpolated}" } }\n';
    const config = await parseConfig(text, { baseDir: '/srv', env: { ENV: 'prod' } });
    expect(config.dataDir).toBe('/var/lib/driftgate');
    expect(config.stacks[0]).toMatchObject({
      name: 'prod/app',
      dir: '/srv/stacks/prod',
      vars: { literal: '${not.interpolated}' },
    });
  });

  it('never puts the value of a set variable into any error message', async () => {
    const secret = 'hunter2-s3cr3t-value';
    const env = { SECRET: secret, OTHER: `x${secret}y` };
    const text = [
      'version: 1\ndataDir: ${SECRET}',
      'defaults:',
      '  schedule: "${SECRET}"', // invalid cron: the schema message quotes the value
      '  mode: "${SECRET}"', // invalid enum
      '  snooze: "${OTHER}"', // invalid duration, value embedded in a longer string
      'terraform: { binary: "${SECRET}", timeouts: { plan: "10${SECRET}" } }',
      'stacks:',
      '  - { name: "${SECRET}!", dir: a, env: { A: "${MISSING}" } }',
      '  - { name: "${SECRET}!", dir: b }', // duplicate name quotes the name
      '  - { name: ok, dir: c, schedule: "${SECRET}" }',
    ].join('\n');
    const error = await parseConfig(text, { baseDir, env, file: '/etc/driftgate.yml' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const everything = JSON.stringify({
      message: (error as ConfigError).message,
      issues: (error as ConfigError).issues,
      stack: (error as Error).stack,
    });
    expect((error as ConfigError).issues.length).toBeGreaterThanOrEqual(7);
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain('hunter2');
    // The messages still say what is wrong, in terms of what was written.
    expect((error as ConfigError).issues).toEqual(
      expect.arrayContaining([
        { path: 'defaults.schedule', message: 'invalid cron expression "${SECRET}"' },
        { path: 'stacks[2].schedule', message: 'invalid cron expression "${SECRET}"' },
        { path: 'stacks[0].env.A', message: 'environment variable "MISSING" is not set' },
        { path: 'stacks[1].name', message: 'duplicate stack name "${SECRET}!" (also stacks[0].name)' },
      ]),
    );
  });
});
