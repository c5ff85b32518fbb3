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

  it('with a terraform container: its paths and plugin cache in the shared dir, local stacks there or refused', async () => {
    const withContainer = CONFIG.replace(
      'agent: { port: 3001 } }',
      'agent: { port: 3001 }, terraformContainer: { dir: /var/lib/driftgate-shared } }',
    );
    const config = await parseConfig(withContainer, {
      baseDir: '/srv',
      env: { AWS_REGION: 'x' },
      role: 'agent-worker',
    });
    expect(config.terraformContainer).toEqual({
      dir: '/var/lib/driftgate-shared',
      socket: '/var/lib/driftgate-shared/terraform.sock',
    });
    expect(config.terraform.pluginCacheDir).toBe('/var/lib/driftgate-shared/plugin-cache');
    // A data dir inside the shared one, and a local stack dir the container cannot see.
    const refused = `
version: 1
dataDir: /srv/shared/data
runners: { type: workers, terraformContainer: { dir: /srv/shared } }
stacks:
  - { name: dev/inside, dir: /srv/shared/stacks/dev, pool: dev }
  - { name: dev/outside, dir: /srv/outside, pool: dev }
`;
    await expect(parseConfig(refused, { baseDir: '/srv', env: {}, role: 'agent-worker' })).rejects.toThrow(
      /runners\.terraformContainer\.dir: .*overlaps the data dir[\s\S]*stacks dev\/outside are local dirs outside/,
    );
  });
});
