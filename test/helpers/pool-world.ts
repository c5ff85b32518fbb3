/**
 * driftgate with `runners: workers` as separate processes on loopback: `serve` replicas (the control plane,
 * holding the Slack token, the store and the bucket, sharing one Postgres database and an S3-compatible
 * bucket) and `worker --pool` processes holding only the agent API's address and their pool's token, with
 * the Slack emulator as Slack. Any process can be killed for real (kill -9 of its process group).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { openPostgresStore } from '../../src/adapters/store/postgres/open-postgres-store.js';
import type { Store } from '../../src/ports/store.js';
import { BIN, runCli } from './cli.js';
import { configYaml, serveConfig, type ConfigPatch, type StackSettings } from './config-builder.js';
import { type AgentService, startAgentService } from './agent-service.js';
import { closedPort } from './ports.js';
import { startLocalS3, type LocalS3 } from './s3rver.js';
import { type EmulatedMessage, startSlackEmulator, type SlackEmulator } from './slack-emulator.js';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import { buttonClick, interactionForm, postSigned, slashCommand } from './slack-signing.js';
import { writeStacks } from './stack-files.js';
import { makeTerraformEnv, type TestTerraformEnv } from './terraform-env.js';
import { waitFor } from './process-wait.js';
import { holdStateLock as holdStateLockIn } from './state-lock.js';

export const POOL_SIGNING_SECRET = 'signing-secret-for-driftgate-pool-tests';
export const POOL_CHANNEL = 'C0ALERTS';
const BUCKET = 'driftgate-plans';

export interface DriftgateProcess {
  /** What it was started as: `serve` or `worker:<pool>`. */
  role: string;
  base: string;
  /** A `serve`'s own agent API, not through the world's `agentUrl`. */
  agentUrl?: string;
  pid: number;
  /** The lines it wrote on stderr so far (JSON logs). */
  logs(): string[];
  /** How it ended (its exit code, or the signal that ended it); undefined while it runs. */
  exited(): { code: number | null; signal: string | null } | undefined;
  /** kill -9 of its whole process group (driftgate, terraform, provisioners). */
  kill9(): Promise<void>;
  stop(): Promise<void>;
  /** SIGTERM without waiting for the end: `ended` says how it ended. */
  sigterm(): void;
  /** Its exit code once it has exited. */
  ended: Promise<number | undefined>;
}

export interface PoolWorld {
  tf: TestTerraformEnv;
  emulator: SlackEmulator;
  s3: LocalS3;
  /** terraform's settings, the store and the bucket: what a person's terraform and the CLI get. */
  baseEnv: Record<string, string | undefined>;
  /** The control plane's: baseEnv and the Slack credentials. */
  serveEnv: Record<string, string | undefined>;
  configFile: string;
  /** Where workers reach the agent API: one address in front of every live `serve` replica. */
  agentUrl: string;
  stackDir(name: string): string;
  /** Stops the S3-compatible server for good: the bucket is down from now on. */
  s3Down(): Promise<void>;
  /** terraform init and apply of the stack as a person would (test setup), with `env` added. */
  applyWithTerraform(stack: string, env?: Record<string, string>): Promise<void>;
  /** A control plane replica, with an agent port of its own behind `agentUrl`. */
  serve(): Promise<DriftgateProcess>;
  /**
   * A worker: terraform's settings and `env` (the control plane's URL and its pool token, by default
   * `agentUrl` and a token of the pool made once), and nothing of the store's, the bucket's or the bot's.
   */
  worker(pool: string, env?: Record<string, string>): Promise<DriftgateProcess>;
  command(to: DriftgateProcess, text: string, user: string): Promise<Response>;
  click(
    to: DriftgateProcess,
    actionId: string,
    value: string,
    user: string,
    message: { channel: string; ts: string },
  ): Promise<Response>;
  /** One short-lived connection to the shared store. */
  withStore<T>(fn: (store: Store) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface PoolWorldOptions {
  databaseUrl: string;
  stacks: Record<string, string>;
  stackSettings?: Record<string, StackSettings>;
  config?: ConfigPatch;
  /** More variables for the control plane only (GitHub credentials). */
  serveEnv?: Record<string, string>;
  /** More variables for every process and the CLI (what the config's `${VAR}`s name). */
  env?: Record<string, string>;
}

export async function startPoolWorld(options: PoolWorldOptions): Promise<PoolWorld> {
  const tf = await makeTerraformEnv('driftgate-pools-');
  const emulator = await startSlackEmulator({ usergroups: [] });
  const s3 = await startLocalS3([BUCKET]);
  const root = join(tf.dir, 'repo');
  const stacks = await writeStacks(root, options.stacks, options.stackSettings);
  const configFile = join(tf.dir, 'driftgate.yml');
  const shared: ConfigPatch = {
    store: { type: 'postgres', url: '${DATABASE_URL}' },
    artifacts: { type: 's3', bucket: BUCKET, region: s3.region, endpoint: s3.endpoint, forcePathStyle: true },
    runners: { type: 'workers', agent: { host: '127.0.0.1' } },
  };
  await writeFile(
    configFile,
    // Each process keeps its own data dir (work files, plugin cache), as on its own machine.
    configYaml(serveConfig('${DRIFTGATE_DATA_DIR}', stacks, POOL_CHANNEL), shared, options.config),
  );
  const baseEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...tf.env,
    DATABASE_URL: options.databaseUrl,
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    ...options.env,
  };
  const serveEnv = {
    ...baseEnv,
    SLACK_BOT_TOKEN: emulator.token,
    SLACK_SIGNING_SECRET: POOL_SIGNING_SECRET,
    SLACK_API_URL: emulator.apiUrl,
    ...options.serveEnv,
  };
  const running = new Set<DriftgateProcess>();
  let requests = 0;
  let spawned = 0;
  const service: AgentService = await startAgentService();
  const tokens = new Map<string, Promise<string>>();
  let s3Closed = false;

  async function spawn(
    role: string,
    args: string[],
    env: Record<string, string | undefined>,
    /** A serve's agent port: added to the service once it is ready, taken out when it stops. */
    agentPort?: number,
  ) {
    const port = await closedPort();
    const base = `http://127.0.0.1:${port}`;
    const dataDir = join(tf.dir, `data-${role.replace(':', '-')}-${++spawned}`);
    const child: ResultPromise = execa('node', [BIN, ...args, '--config', configFile, '--port', String(port)], {
      env: { ...env, DRIFTGATE_DATA_DIR: dataDir },
      extendEnv: false,
      reject: false,
      detached: true,
      cwd: tf.dir,
    });
    const lines: string[] = [];
    // A chunk may end inside a line: its start waits for the rest.
    let partial = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts.filter(Boolean));
    });
    child.stderr?.on('end', () => partial && lines.push(partial));
    const ready = async () => {
      try {
        return (await fetch(`${base}/readyz`)).status === 200 ? true : undefined;
      } catch {
        return undefined;
      }
    };
    try {
      await waitFor(`${role} to be ready`, async () => {
        if (child.exitCode !== null) throw new Error(`${role} exited: ${lines.join('\n')}`);
        return ready();
      });
    } catch (err) {
      // Never ready: not left running behind the caller's back.
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
      await child;
      throw err;
    }
    if (agentPort !== undefined) service.add(agentPort);
    const gone = () => agentPort !== undefined && service.remove(agentPort);
    const proc: DriftgateProcess = {
      role,
      base,
      ...(agentPort !== undefined ? { agentUrl: `http://127.0.0.1:${agentPort}` } : {}),
      pid: child.pid!,
      logs: () => lines,
      exited: () =>
        child.exitCode === null && child.signalCode === null
          ? undefined
          : { code: child.exitCode, signal: child.signalCode },
      async kill9() {
        if (!running.delete(proc)) return;
        gone();
        process.kill(-child.pid!, 'SIGKILL');
        await child;
      },
      async stop() {
        if (!running.delete(proc)) return;
        gone();
        child.kill('SIGTERM');
        await child;
      },
      sigterm() {
        if (!running.delete(proc)) return;
        gone();
        child.kill('SIGTERM');
      },
      ended: child.then((result) => result.exitCode),
    };
    running.add(proc);
    return proc;
  }

  const world: PoolWorld = {
    tf,
    emulator,
    s3,
    baseEnv,
    serveEnv,
    configFile,
    agentUrl: service.url,
    stackDir: (name) => join(root, name),
    async s3Down() {
      if (s3Closed) return;
      s3Closed = true;
      await s3.close();
    },
    async applyWithTerraform(stack, more = {}) {
      const cwd = join(root, stack);
      const env = { ...baseEnv, ...more };
      await execa('terraform', ['init', '-input=false', '-no-color'], { cwd, env, extendEnv: false });
      await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], { cwd, env, extendEnv: false });
    },
    async serve() {
      // Each replica its own agent port, behind the one address workers know.
      const agentPort = await closedPort();
      return spawn('serve', ['serve', '--agent-port', String(agentPort)], serveEnv, agentPort);
    },
    async worker(pool, env = {}) {
      if (!env.DRIFTGATE_POOL_TOKEN && !tokens.has(pool)) tokens.set(pool, poolToken(world, pool));
      return spawn(`worker:${pool}`, ['worker', '--pool', pool, '--concurrency', '1'], {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...tf.env,
        DRIFTGATE_CONTROL_PLANE_URL: service.url,
        ...options.env,
        ...(env.DRIFTGATE_POOL_TOKEN ? {} : { DRIFTGATE_POOL_TOKEN: await tokens.get(pool)! }),
        ...env,
      });
    },
    command(to, text, user) {
      const url = emulator.responseUrl(`pool-command-${++requests}`);
      const form = slashCommand(text, user, { channel_id: POOL_CHANNEL, response_url: url });
      return postSigned(`${to.base}/slack/events`, POOL_SIGNING_SECRET, form);
    },
    click(to, actionId, value, user, message) {
      const id = `pool-click-${++requests}`;
      const payload = buttonClick(actionId, value, { responseUrl: emulator.responseUrl(id), ...message });
      return postSigned(
        `${to.base}/slack/events`,
        POOL_SIGNING_SECRET,
        interactionForm(user, `trigger-${id}`, payload),
      );
    },
    async withStore(fn) {
      const store = await openPostgresStore({ url: options.databaseUrl, poolSize: 2, configKey: 'store.url' });
      try {
        return await fn(store);
      } finally {
        await store.close();
      }
    },
    async close() {
      await Promise.all([...running].map((p) => p.stop()));
      await service.close();
      await emulator.close();
      if (!s3Closed) await s3.close();
      await tf.cleanup();
    },
  };
  return world;
}

/** A token for `pool`'s workers on the agent API, made with the CLI as an operator would. */
export async function poolToken(w: PoolWorld, pool: string): Promise<string> {
  const env = { ...w.baseEnv, DRIFTGATE_DATA_DIR: join(w.tf.dir, 'data-cli') };
  const created = await runCli(['pool', 'token', 'create', pool, '--config', w.configFile], { cwd: w.tf.dir, env });
  if (created.code !== 0) throw new Error(`pool token create ${pool} failed: ${created.stderr}`);
  return created.stdout.split('\n')[0]!;
}

/** Changes the stack's VPC tags out of band, as someone in a console would: drift for its next plan. */
export async function driftTags(w: PoolWorld, stack: string): Promise<void> {
  await editResourceInput(
    { binary: 'terraform', env: w.baseEnv },
    w.stackDir(stack),
    { type: 'terraform_data', name: 'vpc' },
    (input) => {
      (input.tags as Record<string, string>).Team = 'console-cowboy';
    },
  );
}

/** A person's terraform holding the stack's state lock (state-lock.ts), in the pool world's stack dir. */
export const holdStateLock = (w: PoolWorld, stack: string) => holdStateLockIn(w.stackDir(stack), w.baseEnv);

/** The channel's messages that start a thread: one per alert. */
export const topLevel = (w: PoolWorld): EmulatedMessage[] =>
  w.emulator.messages(POOL_CHANNEL).filter((m) => m.threadTs === undefined);
