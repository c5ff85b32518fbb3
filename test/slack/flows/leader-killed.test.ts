import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningServe, startServe } from '../../../src/app/serve.js';
import { parseConfig } from '../../../src/config/load.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../../helpers/cli.js';
import { usePostgres } from '../../helpers/postgres.js';
import {
  PROCESS_CHANNEL,
  type ServeProcessWorld,
  startServeProcessWorld,
  waitFor,
} from '../../helpers/serve-process.js';
import { APPROVERS, NETWORK } from './fixtures.js';
import { editResourceInput } from '../../../src/cli/commands/demo-drift.js';

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

/**
 * The leading `serve` is a process, killed with kill -9 while an alert waits in the shared outbox (Slack
 * was down); the standby takes the lead and posts it, once.
 */
describe.skipIf(!HAS_BUILD)(`the leader killed (${HAS_BUILD ? BIN : NO_BUILD_REASON})`, () => {
  it('hands the schedule and the outbox to the standby: the alert it had not sent is posted once', async () => {
    world = await startServeProcessWorld({
      stacks: { [STACK]: NETWORK },
      stackSettings: { [STACK]: { environment: 'staging' } },
      config: { ...APPROVERS, store: { type: 'postgres', url: '${DATABASE_URL}' } },
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
    await w.emulator.down();
    // Any replica checks (a click or a webhook may land on either); the leader alone delivers.
    const drifted = await standby.scheduler.request(STACK);
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
});
