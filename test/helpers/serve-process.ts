/**
 * `driftgate serve` as its own process, from the built CLI, against the Slack emulator and the PagerDuty
 * receiver of this test process: for crashes, where the process tree is killed for real (kill -9) and
 * started again on the same data dir. The emulator and the receiver outlive it, as Slack and PagerDuty do.
 */
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { execa, type ResultPromise } from 'execa';
import { openSqliteStore } from '../../src/adapters/store/sqlite/open-sqlite-store.js';
import type { Store } from '../../src/ports/store.js';
import { BIN } from './cli.js';
import { configYaml, serveConfig, type ConfigPatch, type StackSettings } from './config-builder.js';
import { startPagerdutyReceiver, type PagerdutyReceiver } from './pagerduty-receiver.js';
import { closedPort } from './ports.js';
import { startSlackEmulator, type SlackEmulator } from './slack-emulator.js';
import { buttonClick, interactionForm, postSigned, slashCommand } from './slack-signing.js';
import { writeStacks } from './stack-files.js';
import { makeTerraformEnv, type TestTerraformEnv } from './terraform-env.js';

export const PROCESS_SIGNING_SECRET = 'signing-secret-for-driftgate-process-tests';
export const PROCESS_CHANNEL = 'C0ALERTS';
/** The variable `pagerduty.routing` names in these tests, and its key (32 characters, as PagerDuty wants). */
export const PD_KEY_ENV = 'PAGERDUTY_ROUTING_KEY_TEST';
const PD_KEY = '0123456789abcdef0123456789abcdef';

export interface ServeProcessWorld {
  tf: TestTerraformEnv;
  emulator: SlackEmulator;
  pagerduty: PagerdutyReceiver;
  /** The environment driftgate and terraform run with. */
  env: Record<string, string | undefined>;
  configFile: string;
  /** Where serve listens (every start, the same port). */
  base: string;
  stackDir(name: string): string;
  /** Plans and applies a stack with the terraform CLI directly (test setup, not the code under test). */
  applyWithTerraform(stack: string): Promise<void>;
  /** Starts `driftgate serve` and waits until /readyz answers 200. */
  start(): Promise<void>;
  /** kill -9 of the whole process group (driftgate, terraform, its provisioners): a power cut. */
  kill9(): Promise<void>;
  /** A signed `/drift <text>` from `user`. */
  command(text: string, user: string): Promise<Response>;
  /** A signed click of a button in the message at `channel`/`ts`. */
  click(actionId: string, value: string, user: string, message: { channel: string; ts: string }): Promise<Response>;
  /** Reads the SQLite file as it is now (driftgate may be running: WAL lets both in). */
  withStore<T>(fn: (store: Store) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface ServeProcessOptions {
  stacks: Record<string, string>;
  stackSettings?: Record<string, StackSettings>;
  config?: ConfigPatch;
  /** More variables for driftgate (e.g. DATABASE_URL). */
  env?: Record<string, string>;
}

export { waitFor } from './process-wait.js';

export async function startServeProcessWorld(options: ServeProcessOptions): Promise<ServeProcessWorld> {
  const tf = await makeTerraformEnv('driftgate-process-');
  const emulator = await startSlackEmulator({ usergroups: [] });
  const pagerduty = await startPagerdutyReceiver();
  const root = join(tf.dir, 'repo');
  const stacks = await writeStacks(root, options.stacks, options.stackSettings);
  const configFile = join(tf.dir, 'driftgate.yml');
  await writeFile(configFile, configYaml(serveConfig(join(tf.dir, 'data'), stacks, PROCESS_CHANNEL), options.config));
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...tf.env,
    SLACK_BOT_TOKEN: emulator.token,
    SLACK_SIGNING_SECRET: PROCESS_SIGNING_SECRET,
    SLACK_API_URL: emulator.apiUrl,
    PAGERDUTY_EVENTS_URL: pagerduty.eventsUrl,
    [PD_KEY_ENV]: PD_KEY,
    ...options.env,
  };
  const port = await closedPort();
  const base = `http://127.0.0.1:${port}`;
  let child: ResultPromise | undefined;
  let clicks = 0;

  const ready = async () => {
    try {
      return (await fetch(`${base}/readyz`)).status === 200;
    } catch {
      return false;
    }
  };

  return {
    tf,
    emulator,
    pagerduty,
    env,
    configFile,
    base,
    stackDir: (name) => join(root, name),
    async applyWithTerraform(stack) {
      const cwd = join(root, stack);
      await execa('terraform', ['init', '-input=false', '-no-color'], { cwd, env, extendEnv: false });
      await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], { cwd, env, extendEnv: false });
    },
    async start() {
      child = execa('node', [BIN, 'serve', '--config', configFile, '--port', String(port)], {
        env,
        extendEnv: false,
        reject: false,
        detached: true,
      });
      for (let i = 0; i < 600 && !(await ready()); i++) {
        if (child.exitCode !== null) throw new Error(`driftgate serve exited: ${(await child).stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      if (!(await ready())) throw new Error('driftgate serve did not get ready');
    },
    async kill9() {
      if (!child?.pid) return;
      process.kill(-child.pid, 'SIGKILL');
      await child;
      child = undefined;
    },
    command(text, user) {
      const url = emulator.responseUrl(`process-command-${++clicks}`);
      const form = slashCommand(text, user, { channel_id: PROCESS_CHANNEL, response_url: url });
      return postSigned(`${base}/slack/events`, PROCESS_SIGNING_SECRET, form);
    },
    click(actionId, value, user, message) {
      const id = `process-click-${++clicks}`;
      const payload = buttonClick(actionId, value, { responseUrl: emulator.responseUrl(id), ...message });
      return postSigned(
        `${base}/slack/events`,
        PROCESS_SIGNING_SECRET,
        interactionForm(user, `trigger-${id}`, payload),
      );
    },
    async withStore(fn) {
      const store = openSqliteStore({ path: join(tf.dir, 'data', 'driftgate.db') });
      try {
        return await fn(store);
      } finally {
        await store.close();
      }
    },
    async close() {
      if (child?.pid) {
        child.kill('SIGTERM');
        await child;
      }
      await emulator.close();
      await pagerduty.close();
      await tf.cleanup();
    },
  };
}
