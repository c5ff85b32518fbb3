import { describe, expect, it } from 'vitest';
import { terraformBaseEnv } from '../../src/app/context.js';
import type { DriftgateConfig } from '../../src/config/schema.js';
import { stackConfig } from '../helpers/stack-config.js';

describe('terraformBaseEnv', () => {
  it("keeps driftgate's own credentials out of terraform's environment, and everything else in", () => {
    const config = {
      stacks: [
        {
          ...stackConfig('net', '/tmp/net'),
          git: { url: 'https://github.com/o/r', branch: 'main', tokenEnv: 'INFRA_GIT_TOKEN', path: '.', varFiles: [] },
        },
      ],
      pagerduty: { routing: [{ routingKeyEnv: 'PD_KEY_PROD' }], severity: {} },
      changeEvents: { secretEnv: 'DRIFTGATE_EVENTS_SECRET' },
    } as unknown as DriftgateConfig;
    const env = {
      PATH: '/usr/bin',
      AWS_PROFILE: 'prod',
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 's',
      SLACK_APP_TOKEN: 'xapp-1',
      GITHUB_TOKEN: 'ghp_1',
      GITHUB_APP_PRIVATE_KEY: '-----BEGIN',
      GITHUB_WEBHOOK_SECRET: 'w',
      PD_KEY_PROD: 'k'.repeat(32),
      INFRA_GIT_TOKEN: 't',
      DRIFTGATE_EVENTS_SECRET: 'e'.repeat(32),
      DRIFTGATE_POOL_TOKEN: 'dgp_1',
    };
    expect(terraformBaseEnv(config, env)).toEqual({ PATH: '/usr/bin', AWS_PROFILE: 'prod' });
  });

  it("keeps the Postgres store's URL out, under whatever name it is set, and its owner role's", () => {
    const url = 'postgres://driftgate:pw@db:5432/driftgate';
    const config = { stacks: [], store: { type: 'postgres', url, poolSize: 10 } } as unknown as DriftgateConfig;
    const env = { PATH: '/usr/bin', DRIFTGATE_DB: url, OTHER_DB: 'postgres://x', DATABASE_OWNER_URL: 'postgres://o' };
    expect(terraformBaseEnv(config, env)).toEqual({
      PATH: '/usr/bin',
      OTHER_DB: 'postgres://x',
    });
  });
});
