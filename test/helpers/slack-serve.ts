import { join } from 'node:path';
import { execa } from 'execa';
import { startServe, type RunningServe, type ServeOptions } from '../../src/app/serve.js';
import { parseConfig } from '../../src/config/load.js';
import { configYaml, serveConfig, type ConfigPatch, type StackSettings } from './config-builder.js';
import { startSlackEmulator, type EmulatedUsergroup, type SlackEmulator } from './slack-emulator.js';
import { buttonClick, interactionForm, postSigned, slashCommand } from './slack-signing.js';
import { lineSink, writeStacks } from './stack-files.js';
import { makeTerraformEnv, type TestTerraformEnv } from './terraform-env.js';

export const SIGNING_SECRET = 'signing-secret-for-driftgate-tests';
export const CHANNEL = 'C0ALERTS';

export interface SlackServe {
  running: RunningServe;
  emulator: SlackEmulator;
  tf: TestTerraformEnv;
  env: Record<string, string | undefined>;
  /** `http://127.0.0.1:<port>` of driftgate's HTTP server. */
  base: string;
  logs: string[];
  /** The clock driftgate reads; tests move it to age plans. */
  now: { value: Date };
  stackDir(name: string): string;
  /** Plans and applies a stack with the terraform CLI directly (test setup, not the code under test). */
  applyWithTerraform(stack: string): Promise<void>;
  /** POSTs a signed `/drift <text>`; its response_url answers land in emulator.responses(id). */
  command(text: string, user: string, id?: string): Promise<Response>;
  /** POSTs a signed block_actions payload for a button, as Slack does when someone clicks it. */
  click(
    actionId: string,
    value: string,
    user: string,
    options?: { id?: string; message?: { channel: string; ts: string }; inHome?: boolean },
  ): Promise<Response>;
  /** POSTs a signed view_submission of the reject modal. */
  submitReject(runId: string, user: string, reason?: string): Promise<Response>;
  /** Waits until every handed-off job is done and the outbox is drained. */
  settle(): Promise<void>;
  /**
   * Waits until the scheduler has nothing running or queued (a check's events are published before it
   * ends), then settles: for checks that something other than the test started (a webhook, a click).
   */
  idle(): Promise<void>;
  /** Stops driftgate and starts it again on the same data dir (a deploy, or a crash after a clean stop). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface SlackServeOptions {
  /** Stack name -> main.tf. */
  stacks: Record<string, string>;
  /** Settings per stack (e.g. `{ environment: 'prod' }`). */
  stackSettings?: Record<string, StackSettings>;
  /**
   * Merged over the helper's config (quiet defaults, the emulator's channel, `digestWindow: 0s`): approvers,
   * defaults, slack… Its `stacks` come after those of `stacks`: stacks from a Git source, whose dir is in the repository.
   */
  config?: ConfigPatch;
  usergroups?: EmulatedUsergroup[];
  env?: Record<string, string>;
  /** Default debug, so tests can check what reaches the logs. */
  logLevel?: NonNullable<ConfigPatch['log']>['level'];
  /** Socket Mode (SLACK_APP_TOKEN set) instead of the HTTP receiver; Slack's side is emulator.socket. */
  socketMode?: boolean;
  /** GitHub client tuning for remediation PRs (shorter retries). */
  github?: ServeOptions['github'];
}

let seq = 0;

/** `driftgate serve` for real: real terraform, a real SQLite file, the Bolt HTTP receiver, a Slack emulator. */
export async function startSlackServe(options: SlackServeOptions): Promise<SlackServe> {
  const tf = await makeTerraformEnv('driftgate-slack-');
  const appToken = 'xapp-emulator-app-token';
  const emulator = await startSlackEmulator({
    usergroups: options.usergroups ?? [],
    ...(options.socketMode ? { appToken } : {}),
  });
  const root = join(tf.dir, 'repo');
  const stacks = await writeStacks(root, options.stacks, options.stackSettings);
  const text = configYaml(serveConfig(join(tf.dir, 'data'), stacks, CHANNEL, options.logLevel), options.config);
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...tf.env,
    ...options.env,
    SLACK_BOT_TOKEN: emulator.token,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: emulator.apiUrl,
    ...(options.socketMode ? { SLACK_APP_TOKEN: appToken } : {}),
  };
  const config = await parseConfig(text, { baseDir: root, env });
  const { lines: logs, stream: logDestination } = lineSink();
  const now = { value: new Date() };
  let port = 0;
  const start = async () => {
    const started = await startServe(config, {
      env,
      port,
      host: '127.0.0.1',
      logDestination,
      now: () => new Date(now.value),
      outboxPollMs: 20,
      ...(options.github ? { github: options.github } : {}),
    });
    port = started.health.port;
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 200 && (await fetch(`${base}/readyz`)).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 25));
    return started;
  };
  let running = await start();
  const base = `http://127.0.0.1:${port}`;
  const events = `${base}/slack/events`;
  const stackDir = (name: string) => config.stacks.find((s) => s.name === name)!.dir;

  const interaction = (user: string, triggerId: string, payload: Record<string, unknown>) =>
    postSigned(events, SIGNING_SECRET, interactionForm(user, triggerId, payload));

  return {
    get running() {
      return running;
    },
    emulator,
    tf,
    env,
    base,
    logs,
    now,
    stackDir,
    async applyWithTerraform(stack) {
      const cwd = stackDir(stack);
      await execa('terraform', ['init', '-input=false', '-no-color'], { cwd, env, extendEnv: false });
      await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], { cwd, env, extendEnv: false });
    },
    command(text, user, id = `cmd-${++seq}`) {
      return postSigned(
        events,
        SIGNING_SECRET,
        slashCommand(text, user, { channel_id: CHANNEL, response_url: emulator.responseUrl(id) }),
      );
    },
    click(actionId, value, user, opts = {}) {
      const id = opts.id ?? `click-${++seq}`;
      const where = opts.inHome
        ? { inHome: true as const }
        : {
            responseUrl: emulator.responseUrl(id),
            channel: opts.message?.channel ?? CHANNEL,
            ts: opts.message?.ts ?? '1.000001',
          };
      return interaction(user, `trigger-${id}`, buttonClick(actionId, value, where));
    },
    submitReject(runId, user, reason) {
      return interaction(user, `trigger-submit-${++seq}`, {
        type: 'view_submission',
        view: {
          id: 'V999',
          type: 'modal',
          callback_id: 'driftgate.reject_modal',
          private_metadata: runId,
          state: {
            values: {
              'driftgate.reject_reason': {
                'driftgate.reject_reason_input': { type: 'plain_text_input', value: reason ?? null },
              },
            },
          },
        },
      });
    },
    async settle() {
      await running.slackApp!.settle();
    },
    async idle() {
      const busy = () => {
        const { running: active, queued } = running.scheduler.status();
        return active.length + queued.length > 0;
      };
      for (let i = 0; i < 4800 && busy(); i++) await new Promise((r) => setTimeout(r, 25));
      if (busy()) throw new Error(`the scheduler is still busy: ${JSON.stringify(running.scheduler.status())}`);
      await running.slackApp!.settle();
    },
    async restart() {
      await running.stop();
      running = await start();
    },
    async close() {
      await running.stop();
      await emulator.close();
      await tf.cleanup();
    },
  };
}
