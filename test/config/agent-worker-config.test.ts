import { describe, expect, it } from 'vitest';
import { forbiddenVariablesHeld } from '../../src/app/agent-worker.js';
import { parseConfig } from '../../src/config/load.js';

/**
 * A worker on the agent API reads the config without the control plane's sections, and refuses every
 * variable those sections name: it must be able to start without them, and must not start with them.
 */
const CONFIG = `
version: 1
store: { type: postgres, url: "\${DATABASE_URL}", ownerUrlEnv: PG_OWNER_URL }
artifacts: { type: s3, bucket: plans, region: eu-west-1, endpoint: "\${BUCKET_ENDPOINT}" }
runners: { type: workers, agent: { port: 3001 } }
pagerduty:
  routing:
    - { environments: [prod], routingKeyEnv: PD_PROD_KEY }
source: { git: { url: "https://github.com/acme/infra.git", branch: main, tokenEnv: GIT_READ_TOKEN } }
stacks:
  - { name: prod/app, dir: prod/app, pool: prod, vars: { region: "\${AWS_REGION}" } }
`;

describe('the agent worker’s config', () => {
  it('loads without the control plane’s variables, and names each of them as one it refuses', async () => {
    const config = await parseConfig(CONFIG, {
      baseDir: '/srv',
      env: { AWS_REGION: 'eu-west-1' },
      role: 'agent-worker',
    });
    // Left as written: the worker has no store URL (the default it falls to is never opened by it).
    expect(config.store?.type).not.toBe('postgres');
    expect(config.slack).toBeUndefined();
    expect(config.stacks[0]!.vars).toEqual({ region: 'eu-west-1' });
    expect(config.controlPlaneVariables).toEqual([
      'BUCKET_ENDPOINT',
      'DATABASE_OWNER_URL',
      'DATABASE_URL',
      'PD_PROD_KEY',
      'PG_OWNER_URL',
    ]);
    const held = forbiddenVariablesHeld(config, {
      DATABASE_URL: 'postgres://x',
      PG_OWNER_URL: 'postgres://owner',
      PD_PROD_KEY: 'k',
      SLACK_BOT_TOKEN: 'xoxb',
      DRIFTGATE_POOL_TOKEN: 'dgpt_…',
      GIT_READ_TOKEN: 'read-only',
      AWS_REGION: 'eu-west-1',
    });
    // Its pool token, the code's read token and its cloud are what a worker holds.
    expect(held).toEqual(['DATABASE_URL', 'PD_PROD_KEY', 'PG_OWNER_URL', 'SLACK_BOT_TOKEN']);
  });

  it('is refused, as before, by the control plane without its variables', async () => {
    await expect(parseConfig(CONFIG, { baseDir: '/srv', env: { AWS_REGION: 'eu-west-1' } })).rejects.toThrow(
      /store\.url: .*DATABASE_URL/,
    );
  });
});
