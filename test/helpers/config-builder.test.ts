import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { approvers, configYaml, gitSource, mergeConfig, slack, stackEntry } from './config-builder.js';

describe('the test config builder', () => {
  it('merges objects key by key, appends arrays, and the later part wins', () => {
    expect(
      mergeConfig(
        { stacks: [stackEntry('a', 'a')], slack: { defaultChannel: 'C1', digestWindow: '0s' } },
        { stacks: [stackEntry('b', 'b', { environment: 'prod' })] },
        slack('C2', { digestWindow: '10m' }),
      ),
    ).toEqual({
      stacks: [
        { name: 'a', dir: 'a' },
        { name: 'b', dir: 'b', environment: 'prod' },
      ],
      slack: { defaultChannel: 'C2', digestWindow: '10m' },
    });
  });

  it('writes YAML the loader reads back, ${ENV} values interpolated, cron strings intact', async () => {
    const text = configYaml(
      {
        defaults: { schedule: '0 0 1 1 *' },
        stacks: [stackEntry('prod/db', 'db', { vars: { password: '${DB_PASSWORD}', port: '5432' } })],
      },
      gitSource('https://example.com/infra.git', { repository: 'acme/infra' }),
      approvers({ leads: ['U0LEAD1'], oncall: { usergroups: ['@oncall'] } }, [{ stacks: '*', from: ['leads'] }]),
    );
    expect(text).toContain('password: ${DB_PASSWORD}\n');
    const config = await parseConfig(text, { baseDir: '/tmp', env: { DB_PASSWORD: 'p: "quoted"' } });
    expect(config.stacks[0]).toMatchObject({
      name: 'prod/db',
      schedule: '0 0 1 1 *',
      vars: { password: 'p: "quoted"', port: '5432' },
    });
    expect(config.approvers?.groups).toEqual({
      leads: { users: ['U0LEAD1'], usergroups: [] },
      oncall: { users: [], usergroups: ['@oncall'] },
    });
  });
});
