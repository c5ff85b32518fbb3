/**
 * `npm run bench:slack`: 200 concurrent, correctly signed Approve clicks on one run. driftgate runs as
 * `driftgate serve` in a process of its own (Bolt HTTP receiver, SQLite, real terraform apply), Slack is
 * an emulator in this process, and the clicks come from a third (click-burst.ts). Three sides take the
 * same burst in the same rounds, in turn: driftgate built from this checkout ("now"); driftgate as it was
 * before issue 28 (BEFORE_ISSUE_28, compiled from git in the same run and started the same way, with a
 * stack, data directory and emulator of its own); and a bare Bolt app whose handler only acks
 * (bare-bolt.ts): the floor of Bolt, the signature checks and the client. Ack latency is the time until
 * the HTTP response, which is what Slack's 3-second rule measures; the applies that follow are counted
 * from each driftgate's audit log.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { openSqliteStore } from '../src/adapters/store/sqlite/open-sqlite-store.js';
import { editResourceInput } from '../src/cli/commands/demo-drift.js';
import { packageRoot } from '../src/cli/package-root.js';
import { closedPort } from '../test/helpers/ports.js';
import { startSlackEmulator, type EmulatedMessage, type SlackEmulator } from '../test/helpers/slack-emulator.js';
import { postSigned, slashCommand } from '../test/helpers/slack-signing.js';
import { BEFORE_ISSUE_28 } from './baselines.js';
import { ownCpuSeconds } from './proc-cpu.js';
import { type ClickRound, clicksMarkdown, type DriftgateSide } from './slack-clicks-report.js';

const CLICKS = 200;
/**
 * Rounds counted, after one warm-up round that is not: on this shared 2-core machine one side's p99 moves
 * by half or more between rounds, so comparing two driftgates needs rounds in pairs, about ten of them.
 */
const ROUNDS = 10;
const STACK = 'staging/network';
const CHANNEL = 'C0ALERTS';
const SECRET = 'bench-signing-secret';
const USERS = Array.from({ length: CLICKS }, (_, i) => `U0B${String(i).padStart(4, '0')}`);
const HCL = `resource "terraform_data" "vpc" {\n  input = { cidr = "10.0.0.0/16", tags = { Name = "main", Team = "core" } }\n}\n`;

async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 120_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every click at once from a separate process; each one's ack latency in ms, sorted. */
async function burst(url: string, runId: string): Promise<number[]> {
  const { stdout } = await execa('node', [
    join(import.meta.dirname, 'click-burst.js'),
    JSON.stringify({ url, secret: SECRET, runId, users: USERS }),
  ]);
  return JSON.parse(stdout) as number[];
}

const text = (m: EmulatedMessage | undefined) => JSON.stringify(m?.blocks ?? []);

function config(dir: string, dataDir: string): string {
  return [
    'version: 1',
    `dataDir: ${dataDir}`,
    'log:\n  level: info',
    'defaults:\n  jitter: 0s\n  schedule: "0 0 1 1 *"',
    `slack:\n  defaultChannel: ${CHANNEL}\n  digestWindow: 0s`,
    `approvers:\n  groups:\n    leads:\n      users: [${USERS.join(', ')}]\n  rules:\n    - stacks: "*"\n      from: [leads]`,
    `stacks:\n  - name: ${STACK}\n    dir: ${dir}\n    environment: staging`,
  ].join('\n');
}

async function startServe(bin: string, file: string, env: Record<string, string>, emulator: SlackEmulator) {
  const port = await closedPort();
  const serve = execa('node', [bin, 'serve', '--config', file, '--port', String(port)], {
    env: { ...env, SLACK_BOT_TOKEN: emulator.token, SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: emulator.apiUrl },
    extendEnv: false,
    reject: false,
  });
  const base = `http://127.0.0.1:${port}`;
  await until('driftgate serve to be ready', async () =>
    (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined,
  );
  return { serve, base };
}

async function startBareBolt(emulator: SlackEmulator): Promise<{ child: ResultPromise; url: string }> {
  const child = execa(
    'node',
    [
      join(import.meta.dirname, 'bare-bolt.js'),
      JSON.stringify({ token: emulator.token, apiUrl: emulator.apiUrl, secret: SECRET }),
    ],
    { reject: false },
  );
  const port = await new Promise<string>((resolve) =>
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())),
  );
  return { child, url: `http://127.0.0.1:${port}/slack/events` };
}

interface Side {
  name: DriftgateSide;
  dir: string;
  dataDir: string;
  emulator: SlackEmulator;
  serve: ResultPromise;
  base: string;
}

/** One driftgate side: its applied stack, config, data directory and Slack emulator, and its serve running. */
async function startSide(name: DriftgateSide, bin: string, workDir: string, env: Record<string, string>) {
  const dir = join(workDir, name, 'stack');
  const dataDir = join(workDir, name, 'data');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'main.tf'), HCL);
  const file = join(workDir, name, 'driftgate.yml');
  await writeFile(file, config(dir, dataDir));
  const tf = { cwd: dir, env, extendEnv: false };
  await execa('terraform', ['init', '-input=false', '-no-color'], tf);
  await execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], tf);
  const emulator = await startSlackEmulator();
  const { serve, base } = await startServe(bin, file, env, emulator);
  return { name, dir, dataDir, emulator, serve, base } satisfies Side;
}

/**
 * Waits until the side has made no Slack call for half a second: the work a check or a burst leaves
 * behind (answers to the other clicks, message updates) must not overlap the next side's burst.
 */
async function quiet(side: Side): Promise<void> {
  let seen = -1;
  let since = Date.now();
  await until(`${side.name}: Slack calls to stop`, () => {
    const calls = side.emulator.calls().length;
    if (calls !== seen) [seen, since] = [calls, Date.now()];
    return Date.now() - since >= 500 ? true : undefined;
  });
}

/** A new drift on the side's stack, checked through /drift check: the alert of the run to approve. */
async function newRun(side: Side, round: number, env: Record<string, string>) {
  await editResourceInput({ binary: 'terraform', env }, side.dir, { type: 'terraform_data', name: 'vpc' }, (input) => {
    (input.tags as Record<string, string>).Team = `console-${round}`;
  });
  const alerts = () => side.emulator.messages(CHANNEL).filter((m) => !m.threadTs);
  const before = alerts().length;
  await postSigned(
    `${side.base}/slack/events`,
    SECRET,
    slashCommand(`check ${STACK}`, USERS[0]!, {
      channel_id: CHANNEL,
      response_url: side.emulator.responseUrl(`check-${round}`),
    }),
  );
  const alert = await until(`${side.name}: the drift alert`, () => alerts()[before]);
  const runId = /"value":"(r_[^"]+)"/.exec(text(alert))?.[1];
  if (!runId) throw new Error(`${side.name}, round ${round}: the alert has no run id`);
  await quiet(side);
  return { alert, runId };
}

/**
 * The burst on the side's run, then its apply reported and the side quiet again: the acks' latencies,
 * the CPU the serve process spent on all of it itself (terraform's left out), and the Slack calls it made.
 */
async function clickAndApply(side: Side, run: { alert: EmulatedMessage; runId: string }) {
  const cpu = ownCpuSeconds(side.serve.pid!);
  const callsBefore = side.emulator.calls().length;
  const acks = await burst(`${side.base}/slack/events`, run.runId);
  await until(`${side.name}: the applied message`, () =>
    text(side.emulator.message(run.alert.channel, run.alert.ts)).includes('Applied in') ? true : undefined,
  );
  await quiet(side);
  const cpuMs = (ownCpuSeconds(side.serve.pid!) - cpu) * 1000;
  const calls = side.emulator
    .calls()
    .slice(callsBefore)
    .map((c) => c.method);
  return { acks, cpuMs, calls };
}

async function appliesPerRun(side: Side, runIds: string[]): Promise<number[]> {
  const store = openSqliteStore({ path: join(side.dataDir, 'driftgate.db') });
  const applies: number[] = [];
  for (const runId of runIds)
    applies.push((await store.listAudit({ runId })).filter((a) => a.action === 'apply_started').length);
  await store.close();
  return applies;
}

export async function benchSlackClicks(options: {
  workDir: string;
  env: Record<string, string>;
  bin: string;
}): Promise<{ markdown: string }> {
  const { workDir, env } = options;
  const root = packageRoot();
  // Loaded here: it brings the TypeScript compiler, which the clicks themselves do not need.
  const { compileDriftgateAt, shortSha } = await import('./baseline-modules.js');
  const bins: Record<DriftgateSide, string> = {
    now: options.bin,
    before: await compileDriftgateAt({ root, commit: BEFORE_ISSUE_28, dir: join(workDir, 'before-build') }),
  };
  const sides = {} as Record<DriftgateSide, Side>;
  let bare: Awaited<ReturnType<typeof startBareBolt>> | undefined;
  const rows: ClickRound[] = [];
  const runIds: Record<DriftgateSide, string[]> = { now: [], before: [] };
  try {
    for (const name of ['now', 'before'] as const) sides[name] = await startSide(name, bins[name], workDir, env);
    bare = await startBareBolt(sides.now.emulator);
    for (let round = 0; round <= ROUNDS; round++) {
      const runs = { now: await newRun(sides.now, round, env), before: await newRun(sides.before, round, env) };
      const bolt = await burst(bare.url, 'r_none');
      // In turn, the first driftgate side alternating between rounds: the same machine load for each.
      const order: DriftgateSide[] = round % 2 === 1 ? ['before', 'now'] : ['now', 'before'];
      const done = {} as Record<DriftgateSide, Awaited<ReturnType<typeof clickAndApply>>>;
      for (const name of order) done[name] = await clickAndApply(sides[name], runs[name]);
      if (round === 0) continue; // the warm-up: each side's first burst pays its JIT
      for (const name of order) runIds[name].push(runs[name].runId);
      rows.push({
        round,
        bolt,
        now: done.now.acks,
        before: done.before.acks,
        cpuMs: { now: done.now.cpuMs, before: done.before.cpuMs },
        slackCalls: { now: done.now.calls, before: done.before.calls },
      });
    }
  } finally {
    bare?.child.kill('SIGTERM');
    for (const side of Object.values(sides)) side.serve.kill('SIGTERM');
    await Promise.all([bare?.child, ...Object.values(sides).map((s) => s.serve)]);
    await Promise.all(Object.values(sides).map((s) => s.emulator.close()));
  }
  const applies = {
    now: await appliesPerRun(sides.now, runIds.now),
    before: await appliesPerRun(sides.before, runIds.before),
  };
  return {
    markdown: clicksMarkdown({
      rows,
      applies,
      commits: { now: await shortSha(root), before: await shortSha(root, BEFORE_ISSUE_28) },
    }),
  };
}
