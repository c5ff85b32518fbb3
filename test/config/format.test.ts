import { describe, expect, it } from 'vitest';
import { formatIssue, formatIssues, formatValidation } from '../../src/config/format.js';
import { parseConfig } from '../../src/config/load.js';

describe('formatting config issues for the CLI', () => {
  it('writes one "path: message" line per issue; root issues have no path', () => {
    expect(formatIssue({ path: 'stacks[2].schedule', message: 'invalid cron expression "*/5 * *"' })).toBe(
      'stacks[2].schedule: invalid cron expression "*/5 * *"',
    );
    expect(
      formatIssues([
        { path: '', message: 'unknown key "x"' },
        { path: 'a.b', message: 'required' },
      ]),
    ).toBe('unknown key "x"\na.b: required');
  });

  it('reports errors and warnings with a summary', () => {
    const text = formatValidation({
      file: '/etc/driftgate.yml',
      issues: [{ path: 'defaults.mode', message: 'must be one of "alert"' }],
      warnings: [{ path: 'discover[0].glob', message: '"x/*" matched no directory holding *.tf files' }],
    });
    expect(text).toBe(
      [
        'error: defaults.mode: must be one of "alert"',
        'warning: discover[0].glob: "x/*" matched no directory holding *.tf files',
        '/etc/driftgate.yml: 1 error, 1 warning',
      ].join('\n'),
    );
  });

  it('summarises a valid config by its stack count', async () => {
    const config = await parseConfig('version: 1\nstacks: [{ name: a, dir: a }, { name: b, dir: b }]', {
      baseDir: '/srv',
      env: {},
    });
    expect(formatValidation({ file: '/srv/driftgate.yml', config, issues: [], warnings: [] })).toBe(
      '/srv/driftgate.yml: ok, 2 stacks',
    );
  });
});
