import { mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, HAS_BUILD, NO_BUILD_REASON, runCli } from '../helpers/cli.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import { startCountingProxy, type CountingProxy } from '../helpers/counting-proxy.js';
import { closedPort } from '../helpers/ports.js';
import { waitFor } from '../helpers/process-wait.js';
import { startSlackEmulator, type SlackEmulator } from '../helpers/slack-emulator.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

/**
 * `serve` in production, one process on a SQLite store, through the built CLI: one serve per store (a
 * second is refused, a dead one does not block), its first lines, and its egress through a proxy.
 */
let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let config: string;
let emulator: SlackEmulator;
let proxy: CountingProxy;
const running: ResultPromise[] = [];

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-serve-production-');
  const stackDir = join(tf.dir, 'app');
  await mkdir(stackDir);
  await writeFile(join(stackDir, 'main.tf'), 'resource "terraform_data" "app" {\n  input = "v1"\n}\n');
  env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...tf.env };
  config = join(tf.dir, 'driftgate.yml');
  await writeFile(
    config,
    configYaml({
      dataDir: join(tf.dir, 'data'),
      slack: { defaultChannel: 'C0ALERTS' },
      stacks: [stackEntry('app', stackDir, { schedule: '0 0 1 1 *' })],
    }),
  );
  emulator = await startSlackEmulator({ usergroups: [] });
  proxy = await startCountingProxy();
}, 60_000);

afterAll(async () => {
  // A test that failed half way leaves its serve running: it would hold the store and keep vitest waiting.
  for (const child of running)
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  await proxy?.close();
  await emulator?.close();
  await tf?.cleanup();
});

interface Serving {
  child: ResultPromise;
  stderr(): string;
}

/** Starts serve; waits until `ready` holds of what it wrote (default: /readyz answers 200). */
async function startServe(
  more: Record<string, string> = {},
  args: string[] = [],
  ready?: (stderr: string) => boolean,
): Promise<Serving> {
  const port = await closedPort();
  const child = execa('node', [BIN, 'serve', '--config', config, '--port', String(port), ...args], {
    env: { ...env, ...more },
    extendEnv: false,
    reject: false,
    detached: true,
  });
  running.push(child);
  const written: string[] = [];
  child.stderr?.on('data', (chunk) => written.push(String(chunk)));
  const stderr = () => written.join('');
  await waitFor('serve to be ready', async () => {
    if (child.exitCode !== null) throw new Error(`serve exited: ${stderr()}`);
    if (ready) return ready(stderr()) ? true : undefined;
    return (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined;
  });
  return { child, stderr };
}

async function stop(serving: Serving): Promise<void> {
  serving.child.kill('SIGTERM');
  await serving.child;
}

const slackEnv = () => ({
  SLACK_BOT_TOKEN: emulator.token,
  SLACK_SIGNING_SECRET: 'signing-secret-for-serve-production',
  SLACK_API_URL: emulator.apiUrl,
});

describe.skipIf(!HAS_BUILD)(`serve in production (${HAS_BUILD ? 'built' : NO_BUILD_REASON})`, () => {
  it('runs once per SQLite store: a second serve is refused naming the first, a check still runs beside it, and a killed first does not block', async () => {
    const first = await startServe({}, ['--log-format', 'human']);
    // Failed before: the human format showed nothing below warn, so a start said nothing at all.
    expect(first.stderr()).toMatch(
      /^info: driftgate serving {2}stacks=1 port=\d+ schedule="0 0 1 1 \*" nextCheck="app at \d{4}-\d\d-\d\dT[\d:.]+Z" slack=off$/m,
    );
    expect(first.stderr()).toMatch(
      /^warn: Slack is not configured \(SLACK_BOT_TOKEN is not set\): .*\/drift and the approval buttons are unavailable$/m,
    );

    // Failed before: the second started a scheduler of its own, and ran until killed.
    const second = await execa('node', [BIN, 'serve', '--config', config, '--port', String(await closedPort())], {
      env,
      extendEnv: false,
      reject: false,
      timeout: 60_000,
    });
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toMatch(
      new RegExp(
        `^driftgate serve: another driftgate serve runs on .*driftgate\\.db: pid ${first.child.pid} on host ${hostname()}, since \\d{4}-`,
      ),
    );
    expect(second.stderr).toContain('strategy: Recreate');

    // A one-shot command takes no lease: it runs beside serve and reports on its stack.
    const check = await execa('node', [BIN, 'check', 'app', '--config', config], {
      env,
      extendEnv: false,
      reject: false,
    });
    expect(check.stdout, check.stderr).toMatch(/^STACK +STATUS/);
    expect(check.stderr).not.toContain('another driftgate serve');

    // A serve killed with -9 leaves its lease behind; the next start sees that its process is gone.
    process.kill(-first.child.pid!, 'SIGKILL');
    await first.child;
    const third = await startServe();
    await stop(third);
  }, 120_000);

  it("sends serve's Slack calls through HTTPS_PROXY, except to the hosts NO_PROXY names", async () => {
    const apiHost = new URL(emulator.apiUrl).host;
    const proxied = { ...slackEnv(), HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url };
    // Ready means auth.test answered: through the proxy. Failed before: nothing read the variables.
    const through = await startServe(proxied);
    await stop(through);
    const tunnels = proxy.seen.filter((line) => line === `CONNECT ${apiHost}`).length;
    expect(tunnels).toBeGreaterThan(0);
    expect(emulator.calls('auth.test').length).toBeGreaterThan(0);

    const bypassing = await startServe({ ...proxied, NO_PROXY: '127.0.0.1' });
    await stop(bypassing);
    expect(proxy.seen.filter((line) => line === `CONNECT ${apiHost}`).length).toBe(tunnels);
  }, 120_000);

  it("says why Slack cannot be reached: serve logs the network's cause, doctor blames the network, not the token", async () => {
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    // Failed before: `fetch failed`, and nothing more.
    const serving = await startServe({ ...slackEnv(), HTTPS_PROXY: nowhere, HTTP_PROXY: nowhere }, [], (stderr) =>
      stderr.includes('slack not reachable'),
    );
    await stop(serving);
    const line = serving
      .stderr()
      .split('\n')
      .find((l) => l.includes('slack not reachable'))!;
    expect(JSON.parse(line)).toMatchObject({
      err: expect.stringMatching(
        /^could not reach Slack: fetch failed \(ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/,
      ),
      hint: expect.stringContaining('set HTTPS_PROXY'),
    });

    // Failed before: the fix said SLACK_BOT_TOKEN must be the bot token.
    const doctor = await runCli(['doctor', '--config', config], {
      cwd: tf.dir,
      env: { ...env, ...slackEnv(), SLACK_API_URL: `${nowhere}/api/` },
    });
    const slackLine = doctor.stdout.split('\n').find((l) => l.startsWith('FAIL slack:'));
    expect(slackLine).toMatch(/could not reach Slack: fetch failed \(ECONNREFUSED/);
    expect(slackLine).toContain('fix: this is the network, not a credential');
    expect(slackLine).not.toContain('SLACK_BOT_TOKEN');
  }, 120_000);
});
