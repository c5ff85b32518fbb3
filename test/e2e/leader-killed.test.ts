import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningServe, startServe } from '../../src/app/serve.js';
import { parseConfig } from '../../src/config/load.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres.js';
import { PROCESS_CHANNEL, type ServeProcessWorld, startServeProcessWorld, waitFor } from '../helpers/serve-process.js';
import { APPROVERS, LEAD1, NETWORK } from './fixtures.js';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';

const postgres = usePostgres();
const STACK = 'staging/network';
let world: ServeProcessWorld | undefined;
let standby: RunningServe | undefined;
afterEach(async () => {
  await standby?.stop();
  standby = undefined;
  await world?.close();
  world = undefined;
});

/** A leading `serve` process and an in-process standby on one Postgres, and drift made by hand. */
async function leaderAndStandby(slack?: { digestWindow: string }): Promise<ServeProcessWorld> {
  world = await startServeProcessWorld({
    stacks: { [STACK]: NETWORK },
    stackSettings: { [STACK]: { environment: 'staging' } },
    config: { ...APPROVERS, store: { type: 'postgres', url: '${DATABASE_URL}' }, ...(slack ? { slack } : {}) },
    env: { DATABASE_URL: await postgres.createDatabase() },
  });
  const w = world;
  const cwd = w.stackDir(STACK);
  await w.applyWithTerraform(STACK);
  await w.start();
  const config = await parseConfig(await readFile(w.configFile, 'utf8'), { baseDir: cwd, env: w.env });
  standby = await startServe(config, { env: w.env, port: 0, host: '127.0.0.1', outboxPollMs: 20, leaseCheckMs: 100 });
  expect(standby.leading()).toBe(false);
  await editResourceInput(
    { binary: 'terraform', env: w.env },
    cwd,
    { type: 'terraform_data', name: 'vpc' },
    (input) => {
      (input.tags as Record<string, string>).Team = 'console-cowboy';
    },
  );
  return w;
}

/**
 * The leading `serve` is a process, killed with kill -9 while an alert waits in the shared outbox (Slack
 * was down); the standby takes the lead and posts it, once.
 */
describe.skipIf(!HAS_BUILD)(`the leader killed (${HAS_BUILD ? BIN : NO_BUILD_REASON})`, () => {
  it('hands the schedule and the outbox to the standby: the alert it had not sent is posted once', async () => {
    const w = await leaderAndStandby();
    await w.emulator.down();
    // Any replica checks (a click or a webhook may land on either); the leader alone delivers.
    const drifted = await standby!.scheduler.request(STACK);
    expect(drifted.status).toBe('drifted');
    await waitFor('the alert in the outbox', async () =>
      (await standby!.context.store.pendingCount()) > 0 ? true : undefined,
    );

    await w.kill9();
    await waitFor('the standby to lead', () => (standby!.leading() ? true : undefined));
    await w.emulator.up();
    await waitFor('the alert', () => (w.emulator.messages(PROCESS_CHANNEL).length > 0 ? true : undefined));
    await waitFor('the outbox to drain', async () =>
      (await standby!.context.store.pendingCount()) === 0 ? true : undefined,
    );
    expect(w.emulator.calls('chat.postMessage').filter((c) => c.status === 200)).toHaveLength(1);
  });

  it('posts the alert the killed leader held in its digest window, from the standby, once', async () => {
    // A window far longer than the test: only the holder's death can get this alert out in time.
    const w = await leaderAndStandby({ digestWindow: '10m' });

    // The check runs on the leader process, which decides the alert and holds it in its window.
    expect((await w.command(`check ${STACK}`, LEAD1)).status).toBe(200);
    const store = standby!.context.store;
    const held = await waitFor('the alert held', async () =>
      (await store.listAudit({ stack: STACK })).find((a) => a.action === 'alert_held'),
    );
    const posts = () => w.emulator.calls('chat.postMessage').filter((c) => c.status === 200);
    expect(posts()).toHaveLength(0);

    await w.kill9();
    await waitFor('the standby to lead', () => (standby!.leading() ? true : undefined));
    await waitFor('the held alert', () => (posts().length > 0 ? true : undefined), 60_000);
    await waitFor('the outbox to drain', async () => ((await store.pendingCount()) === 0 ? true : undefined));
    expect(posts()).toHaveLength(1);
    expect(JSON.stringify(posts()[0])).toContain(held.runId);
    const actions = (await store.listAudit({ runId: held.runId })).map((a) => a.action);
    expect(actions.filter((a) => a === 'alert_posted')).toHaveLength(1);
  });

  // Recovery ran only at a start or a change of leader: a standby killed mid-check left its run planning
  // for as long as the leader lived (found by the soak).
  it('recovers the run of a standby killed mid-check while it keeps the lead', async () => {
    const w = await leaderAndStandby();
    // The in-process serve takes the lead; the process comes back as the standby.
    await w.kill9();
    await waitFor('the in-process serve to lead', () => (standby!.leading() ? true : undefined));
    await w.start();
    const store = standby!.context.store;
    const before = new Set((await store.listRuns({ stack: STACK })).map((r) => r.id));

    // The check runs on the process that was asked: kill -9 while its terraform plans.
    expect((await w.command(`check ${STACK}`, LEAD1)).status).toBe(200);
    const planning = await waitFor('the standby to plan', async () =>
      (await store.listRuns({ stack: STACK })).find((r) => !before.has(r.id) && r.state === 'planning'),
    );
    await w.kill9();
    const ended = await waitFor(
      'the leader to recover the run',
      async () => {
        const run = await store.getRun(planning.id);
        return run?.state === 'planning' ? undefined : run;
      },
      60_000,
    );
    expect(ended.state).toBe('interrupted');
    expect(standby!.leading()).toBe(true);
    expect(await store.getLock(STACK)).toBeUndefined();
  });
});
