import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configYaml, slack, type ConfigPatch } from '../helpers/config-builder.js';
import { closedPort } from '../helpers/ports.js';
import { startServe, type RunningServe } from '../../src/app/serve.js';
import { parseConfig } from '../../src/config/load.js';
import { postSigned, slashCommand } from '../helpers/slack-signing.js';

const SECRET = 'signing-secret-for-tests';

let running: RunningServe | undefined;
let dir: string | undefined;
afterEach(async () => {
  await running?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  running = undefined;
  dir = undefined;
});

async function serve(
  env: Record<string, string>,
  slackSection: ConfigPatch = slack('C0ALERTS'),
): Promise<{ base: string }> {
  dir = await mkdtemp(join(tmpdir(), 'driftgate-serve-slack-'));
  const config = await parseConfig(
    configYaml(
      { dataDir: join(dir, 'data'), log: { level: 'silent' }, stacks: [{ name: 'app', dir: 'app' }] },
      slackSection,
    ),
    {
      baseDir: dir,
      env: {},
    },
  );
  running = await startServe(config, { env: { PATH: process.env.PATH, ...env }, port: 0, host: '127.0.0.1' });
  return { base: `http://127.0.0.1:${running.health.port}` };
}

describe('serve with Slack configured', () => {
  it('stays up and reports not ready while Slack cannot be reached', async () => {
    const { base } = await serve({
      SLACK_BOT_TOKEN: 'xoxb-test-token',
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: `http://127.0.0.1:${await closedPort()}/api/`,
    });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ ok: false, reason: expect.stringContaining('slack') });
    const events = await postSigned(`${base}/slack/events`, SECRET, slashCommand('help'));
    expect(events.status).toBe(503);
    // The failed auth.test is counted; poll until the first attempt has failed.
    let metrics = '';
    for (let i = 0; i < 100 && !metrics.includes('driftgate_slack_api_errors_total{'); i++) {
      metrics = await (await fetch(`${base}/metrics`)).text();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(metrics).toContain('driftgate_slack_api_errors_total{method="auth.test",retriable="true"}');
    expect(metrics).toContain('driftgate_plan_duration_seconds');
  });

  it('refuses to start without a slack section, saying where alerts would go', async () => {
    await expect(serve({ SLACK_BOT_TOKEN: 'xoxb-test-token', SLACK_SIGNING_SECRET: SECRET }, {})).rejects.toThrow(
      /slack: is required when SLACK_BOT_TOKEN is set/,
    );
  });

  it('refuses to start HTTP mode without a signing secret, naming the variable', async () => {
    await expect(serve({ SLACK_BOT_TOKEN: 'xoxb-test-token' })).rejects.toThrow(/SLACK_SIGNING_SECRET/);
  });
});

const refusedToStart = () => new Error('expected serve to refuse to start');

describe('serve with GitHub credentials', () => {
  it('refuses to start on bad GitHub variables, naming them and never their values', async () => {
    const err = await serve({ GITHUB_TOKEN: 'ghp_thisisthetoken', GITHUB_APP_ID: '12' }, {}).then(
      refusedToStart,
      (e: unknown) => e as Error,
    );
    expect(err.message).toContain('env.GITHUB_TOKEN');
    expect(err.message).toContain('authenticate with a token or a GitHub App, not both');
    expect(err.message).not.toContain('ghp_thisisthetoken');
  });

  it('refuses to start with part of a GitHub App, naming what is missing', async () => {
    const partial = await serve({ GITHUB_APP_ID: '12' }, {}).then(refusedToStart, (e: unknown) => e as Error);
    expect(partial.message).toMatch(/env\.GITHUB_APP_PRIVATE_KEY: is not set/);
  });

  it('starts with them but without Slack (remediation PRs are asked for from Slack), calling no GitHub at start', async () => {
    const { base } = await serve(
      { GITHUB_TOKEN: 'ghp_thisisthetoken', GITHUB_API_URL: `http://127.0.0.1:${await closedPort()}` },
      {},
    );
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });
});
