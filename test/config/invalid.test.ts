import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { formatIssues } from '../../src/config/format.js';
import { parseConfig, validateConfigText } from '../../src/config/load.js';
import { ConfigError, type ConfigIssue } from '../../src/domain/errors.js';

const baseDir = tmpdir();

async function issuesOf(text: string, env: Record<string, string> = {}): Promise<ConfigIssue[]> {
  const result = await validateConfigText(text, { baseDir, env });
  expect(result.config).toBeUndefined();
  return result.issues;
}

const stacks = (...lines: string[]) => `version: 1\nstacks:\n${lines.map((l) => `  - ${l}`).join('\n')}\n`;

describe('malformed config files', () => {
  it('reports a YAML syntax error with line and column', async () => {
    const issues = await issuesOf('version: 1\nstacks:\n  - name: a\n    dir: [unclosed\nlog: {}\n');
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe('');
    expect(issues[0]!.message).toMatch(/^YAML syntax error at line \d+, column \d+: /);
  });

  it('reports duplicate YAML keys with their line', async () => {
    const issues = await issuesOf('dataDir: a\ndataDir: b\n');
    expect(issues[0]!.message).toMatch(/^YAML syntax error at line 2, column 1: Map keys must be unique/);
  });

  it('rejects an alias bomb instead of expanding it', async () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++)
      bomb.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(', ')}]`,
      );
    const issues = await issuesOf(bomb.join('\n'));
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toMatch(/alias/i);
  });

  it('names unknown keys at every depth, with a hint', async () => {
    const text = [
      'version: 1',
      'dataDri: x',
      'terraform:',
      '  timeouts: { plan: 5m, aply: 10m }',
      stacks('{ name: a, dir: a, shedule: "0 * * * *" }', '{ name: b, dir: b, labels: [x], colour: red }')
        .replace('version: 1\n', '')
        .trimEnd(),
      'discover:',
      '  - { glob: "envs/*", namePrefx: "x/" }',
    ].join('\n');
    expect(await issuesOf(text)).toEqual([
      { path: 'terraform.timeouts', message: 'unknown key "aply"; did you mean "apply"?' },
      { path: 'stacks[0]', message: 'unknown key "shedule"; did you mean "schedule"?' },
      { path: 'stacks[1]', message: 'unknown key "colour"' },
      { path: 'discover[0]', message: 'unknown key "namePrefx"; did you mean "namePrefix"?' },
      { path: '', message: 'unknown key "dataDri"; did you mean "dataDir"?' },
    ]);
  });

  it('reports a bad cron expression at its exact path, in the CLI format', async () => {
    const text = stacks('{ name: a, dir: a }', '{ name: b, dir: b }', '{ name: c, dir: c, schedule: "*/5 * *" }');
    const issues = await issuesOf(text);
    expect(formatIssues(issues)).toBe('stacks[2].schedule: invalid cron expression "*/5 * *"');
  });

  it('reports a bad duration and wrong types, all at once', async () => {
    const text = [
      'terraform: { timeouts: { plan: 5 minutes } }',
      'defaults: { concurrency: "4", mode: auto-aply, jitter: true }',
      'artifacts: { type: s3, bucket: b }',
      'log: { level: loud }',
      stacks('{ name: "bad name!", dir: 3 }', '{ dir: x }', 'just-a-string').replace('version: 1\n', '').trimEnd(),
      'version: 2',
    ].join('\n');
    const lines = formatIssues(await issuesOf(text)).split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^terraform\.timeouts\.plan: invalid duration "5 minutes"/),
        'defaults.jitter: expected string or number, got boolean',
        'defaults.concurrency: expected number, got string',
        'defaults.mode: must be one of "alert", "auto-minor", "auto-apply"; did you mean "auto-apply"?',
        'artifacts.region: required',
        'log.level: must be one of "trace", "debug", "info", "warn", "error", "fatal", "silent"',
        'stacks[0].name: stack names use letters, digits, ".", "_", "-" and "/"',
        'stacks[0].dir: expected string, got number',
        'stacks[1].name: required',
        'stacks[2]: expected object, got string',
        'version: must be 1',
      ]),
    );
    expect(lines).toHaveLength(11);
  });

  it.each([
    ['defaults: { concurrency: 0 }', 'defaults.concurrency: must be greater than 0'],
    ['terraform: { outputLimitBytes: 1.5 }', 'terraform.outputLimitBytes: must be a whole number'],
    ['slack: { defaultChannel: C0A, digestThreshold: 1 }', 'slack.digestThreshold: must be 2 or more'],
    [
      'slack: { defaultChannel: C0A, onCall: { usergroup: sre, environments: [] } }',
      'slack.onCall.environments: must not be empty: list at least one',
    ],
    ['github: { labels: [""] }', 'github.labels[0]: must not be empty'],
    [
      'approvers: { groups: { a: { users: [U0A] } }, rules: [{ from: [a], count: 11 }] }',
      'approvers.rules[0].count: must be 10 or less',
    ],
    [
      'artifacts: { type: s3, bucket: b, region: r, endpoint: nope }',
      'artifacts.endpoint: must be a URL such as https://example.com',
    ],
  ])("says %s is out of bounds in its own words, not zod's", async (yaml, expected) => {
    expect(formatIssues(await issuesOf(`${stacks('{ name: a, dir: a }')}${yaml}\n`))).toBe(expected);
  });

  it('names an unknown artifact store type', async () => {
    expect(await issuesOf(`${stacks('{ name: a, dir: a }')}artifacts: { type: gcs }`)).toEqual([
      { path: 'artifacts.type', message: 'must be one of "local", "s3"' },
    ]);
  });

  it('rejects a document that is not a mapping', async () => {
    expect(await issuesOf('- a\n- b\n')).toEqual([{ path: '', message: 'expected object, got a list' }]);
  });

  it('names both indices of a duplicate stack name, alongside schema issues', async () => {
    const text = stacks('{ name: app, dir: a }', '{ name: db, dir: b }', '{ name: app, dir: c, mode: nope }');
    expect(await issuesOf(text)).toEqual([
      { path: 'stacks[2].mode', message: 'must be one of "alert", "auto-minor", "auto-apply"' },
      { path: 'stacks[2].name', message: 'duplicate stack name "app" (also stacks[0].name)' },
    ]);
  });

  it('does not let a __proto__ key reach the prototype', async () => {
    const issues = await issuesOf(`__proto__: { polluted: true }\n${stacks('{ name: a, dir: a }')}`);
    expect(issues).toEqual([{ path: '', message: 'unknown key "__proto__"' }]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('never executes unknown tags; it warns and validates the plain value', async () => {
    const result = await validateConfigText(
      `dataDir: !!js/function "function () { return 1 }"\n${stacks('{ name: a, dir: a }')}`,
      {
        baseDir,
        env: {},
      },
    );
    expect(result.config?.dataDir).toMatch(/function/);
    expect(result.warnings[0]!.message).toMatch(/^YAML warning at line 1, column 10: Unresolved tag/);
  });

  it('throws one ConfigError carrying every issue', async () => {
    const text = stacks('{ name: a, dir: a, schedule: nope }', '{ name: a, dir: b }');
    const error = await parseConfig(text, { baseDir, env: {}, file: '/etc/driftgate.yml' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toHaveLength(2);
    expect((error as ConfigError).message).toBe(
      [
        'invalid config /etc/driftgate.yml:',
        '  stacks[0].schedule: invalid cron expression "nope"',
        '  stacks[1].name: duplicate stack name "a" (also stacks[0].name)',
      ].join('\n'),
    );
  });
});
