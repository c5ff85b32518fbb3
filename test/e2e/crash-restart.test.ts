import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { postChangeEvent, tagEvent } from '../helpers/change-events-serve.js';
import { mergeConfig } from '../helpers/config-builder.js';
import {
  PD_KEY_ENV,
  PROCESS_CHANNEL as CHANNEL,
  startServeProcessWorld,
  waitFor,
  type ServeProcessWorld,
} from '../helpers/serve-process.js';
import type { EmulatedMessage } from '../helpers/slack-emulator.js';
import { APPROVERS, LEAD1, NETWORK, actionIds, textOf } from './fixtures.js';

/**
 * `driftgate serve` killed for real (kill -9 of its whole process tree) and started again: what was
 * decided before the crash still reaches Slack and PagerDuty, once, without waiting for another check.
 */
const STACK = 'staging/network';
/** Built with the CLI (npm test builds first), like the `driftgate` it stands beside. */
const FROZEN_CHECK = join(import.meta.dirname, '../../dist/test/fixtures/processes/check-frozen-before-announcing.js');
const PAGING = { pagerduty: { routing: [{ environments: ['staging'], routingKeyEnv: PD_KEY_ENV }] } };

let world: ServeProcessWorld | undefined;
/** Files that end a provisioner still waiting after its terraform lost its driftgate (its own process group). */
const releases: string[] = [];
afterEach(async () => {
  for (const release of releases.splice(0)) await writeFile(release, '');
  await world?.close();
  world = undefined;
});

async function startWorld(config = {}, env: Record<string, string> = {}): Promise<ServeProcessWorld> {
  world = await startServeProcessWorld({
    stacks: { [STACK]: NETWORK },
    stackSettings: { [STACK]: { environment: 'staging' } },
    config: mergeConfig(APPROVERS, PAGING, config),
    env,
  });
  await world.applyWithTerraform(STACK);
  return world;
}

/** Someone edits the stack's real infrastructure: the state says otherwise than the code from now on. */
function changeByHand(w: ServeProcessWorld): Promise<void> {
  return editResourceInput(
    { binary: 'terraform', env: w.env },
    w.stackDir(STACK),
    { type: 'terraform_data', name: 'vpc' },
    (input) => {
      (input.tags as Record<string, string>).Team = 'console-cowboy';
    },
  );
}

const topLevel = (w: ServeProcessWorld): EmulatedMessage[] => w.emulator.messages(CHANNEL).filter((m) => !m.threadTs);
const triggers = (w: ServeProcessWorld) => w.pagerduty.accepted().filter((e) => e.event_action === 'trigger');

/**
 * Asks for a check with `/drift check` and waits until its run is recorded and its page is out and
 * recorded as delivered: a kill -9 between PagerDuty's answer and that record sends the page again at the
 * restart (the same dedup key, which PagerDuty folds into one incident, but not what these tests count).
 */
async function checkDrifted(w: ServeProcessWorld): Promise<string> {
  expect((await w.command(`check ${STACK}`, LEAD1)).status).toBe(200);
  const run = await waitFor('the check to record drift', () =>
    w.withStore(async (s) => (await s.listRuns({ stack: STACK, states: ['drifted'] }))[0]),
  );
  await waitFor('the drift page', () => (triggers(w).length > 0 ? true : undefined));
  await waitForOutboxDrained(w);
  return run.id;
}

function waitForOutboxDrained(w: ServeProcessWorld): Promise<true> {
  return waitFor('the outbox to drain', async () =>
    (await w.withStore((s) => s.pendingCount())) === 0 ? true : undefined,
  );
}

describe.skipIf(!HAS_BUILD)(`crash and restart of serve (${HAS_BUILD ? 'built' : NO_BUILD_REASON})`, () => {
  /** An approved run's apply under way when serve is killed -9, and serve started again. */
  async function applyKilled(w: ServeProcessWorld, before?: () => Promise<void>) {
    const started = join(w.tf.dir, 'provisioner-started');
    const release = join(w.tf.dir, 'never-created');
    releases.push(release);
    const slow = `\nresource "terraform_data" "slow" {\n  input = "slow"\n  provisioner "local-exec" {\n    command = "touch ${started}; while [ ! -f ${release} ]; do sleep 0.1; done"\n  }\n}\n`;
    await writeFile(join(w.stackDir(STACK), 'main.tf'), NETWORK + slow);
    await w.start();
    const runId = await checkDrifted(w);
    const alert = await waitFor('the alert', () => topLevel(w)[0]);
    await before?.();

    const click = await w.click(ACTION_IDS.approve, runId, LEAD1, { channel: alert.channel, ts: alert.ts });
    expect(click.status).toBe(200);
    await waitFor('the provisioner to run', () => (existsSync(started) ? true : undefined));
    await waitFor('the alert to say Applying', () =>
      textOf(w.emulator.message(alert.channel, alert.ts)).includes('Applying') ? true : undefined,
    );
    await w.kill9();
    expect(await w.withStore(async (s) => (await s.getRun(runId))?.state)).toBe('applying');
    await w.start();
    return { runId, alert };
  }

  it('after kill -9 during an apply, the restart tells the alert, its thread, the audit log and on-call', async () => {
    const w = await startWorld();
    const { runId, alert } = await applyKilled(w);
    const updated = await waitFor('the alert to say the apply was interrupted', () => {
      const message = w.emulator.message(alert.channel, alert.ts);
      return textOf(message).includes('Apply interrupted') ? message : undefined;
    });
    expect(textOf(updated)).toContain(`/drift unlock ${STACK}`);
    expect(textOf(updated)).toContain('half applied');
    expect(actionIds(updated)).toEqual([]);
    const reply = await waitFor('a reply in its thread', () =>
      w.emulator.messages(CHANNEL).find((m) => m.threadTs === alert.ts && textOf(m).includes('interrupted')),
    );
    expect(textOf(reply)).toContain(`<@${LEAD1}>`);
    const page = await waitFor('a page about the interrupted apply', () =>
      triggers(w).find((e) => JSON.stringify(e).includes('interrupted')),
    );
    expect(JSON.stringify(page)).toContain(runId);
    // Its own incident: folded into the drift's open one, it would wake nobody.
    expect(page.dedup_key).not.toBe(triggers(w)[0]!.dedup_key);
    const audit = await w.withStore((s) => s.listAudit({ runId }));
    expect(audit.filter((a) => a.action === 'apply_interrupted')).toEqual([
      expect.objectContaining({ actor: 'system', detail: { startedBy: LEAD1 } }),
    ]);
    expect(await w.withStore(async (s) => (await s.getRun(runId))?.state)).toBe('interrupted');

    // Once a person checked the real state and unblocks the stack, its incident is resolved (failed before:
    // nothing ever resolved it). The drift's own incident is left to the drift.
    expect((await w.command(`unlock ${STACK}`, LEAD1)).status).toBe(200);
    await waitFor('the incident of the interrupted apply to be resolved', () =>
      w.pagerduty.accepted().find((e) => e.event_action === 'resolve' && e.dedup_key === page.dedup_key),
    );
    await waitForOutboxDrained(w);
    expect(w.pagerduty.accepted().filter((e) => e.event_action === 'resolve')).toHaveLength(1);
    expect((await w.withStore((s) => s.getStack(STACK)))?.blockedReason).toBeUndefined();
  });

  it('holds the page of an interrupted apply on a silenced stack, as it holds a drift page', async () => {
    // Failed before: a silence held drift pages only, and the interrupted apply woke on-call anyway.
    const w = await startWorld();
    const { runId, alert } = await applyKilled(w, async () => {
      expect((await w.command(`silence ${STACK} 2h migrating the VPC`, LEAD1)).status).toBe(200);
      await waitFor('the silence', () => w.withStore((s) => s.getSilence(STACK, new Date())));
    });
    await waitFor('the alert to say the apply was interrupted', () =>
      textOf(w.emulator.message(alert.channel, alert.ts)).includes('Apply interrupted') ? true : undefined,
    );
    const held = await waitFor('the page to be held', async () =>
      (await w.withStore((s) => s.listAudit({ runId }))).find((a) => a.action === 'page_held'),
    );
    expect(held.detail).toMatchObject({ reason: 'silenced', dedupKey: `driftgate:apply-interrupted:${runId}` });
    await waitForOutboxDrained(w);
    // The drift page went out before the silence; nothing since.
    expect(triggers(w)).toHaveLength(1);
    expect(JSON.stringify(triggers(w))).not.toContain('interrupted');
  });

  it('announces a drift recorded by a process killed before it told anyone, once, at the next start', async () => {
    // Fails before announcements were recorded with the outcome: the drift stayed silent until a later check.
    const w = await startWorld();
    await changeByHand(w);
    const frozen = execa('node', [FROZEN_CHECK, w.configFile, STACK], {
      env: w.env,
      extendEnv: false,
      reject: false,
      detached: true,
    });
    let said = '';
    frozen.stdout?.on('data', (chunk: Buffer) => {
      said += chunk.toString();
    });
    await waitFor('the outcome to be recorded', () => (said.includes('recorded') ? true : undefined));
    process.kill(-frozen.pid!, 'SIGKILL');
    await frozen;
    const [run] = await w.withStore((s) => s.listRuns({ stack: STACK }));
    expect(run?.state).toBe('drifted');

    await w.start();
    const alert = await waitFor('the alert', () => topLevel(w)[0], 30_000);
    expect(textOf(alert)).toContain(run!.id);
    await waitFor('the page', () => (triggers(w).length > 0 ? true : undefined));
    await waitForOutboxDrained(w);
    expect(topLevel(w)).toHaveLength(1);
    expect(triggers(w)).toHaveLength(1);
    expect(await w.withStore((s) => s.listUnannounced())).toEqual([]);
    // Told from what was recorded, not found again by another check.
    expect(await w.withStore(async (s) => (await s.listRuns({ stack: STACK })).map((r) => r.id))).toEqual([run!.id]);
  });

  it('posts an alert held in its digest window when kill -9 came before the window closed, once', async () => {
    const w = await startWorld({ slack: { digestWindow: '10m' } });
    await changeByHand(w);
    await w.start();
    const runId = await checkDrifted(w);
    // The alert waits out its window: nothing in Slack yet.
    expect(topLevel(w)).toEqual([]);
    await w.kill9();

    await w.start();
    const alert = await waitFor('the held alert', () => topLevel(w)[0], 30_000);
    expect(textOf(alert)).toContain(runId);
    await waitForOutboxDrained(w);
    expect(topLevel(w)).toHaveLength(1);
    expect(triggers(w)).toHaveLength(1);
    // Posted from what was recorded, not found again by another check.
    expect(await w.withStore(async (s) => (await s.listRuns({ stack: STACK })).map((r) => r.id))).toEqual([runId]);
  });

  it('checks the stack of a change event taken just before kill -9, at the next start', async () => {
    const secret = 'events-secret-of-the-crash-restart-test';
    const w = await startWorld(
      { changeEvents: { secretEnv: 'EVENTS_SECRET', debounce: '10m', cloudTrail: { lookup: false } } },
      { EVENTS_SECRET: secret },
    );
    await w.start();
    expect((await w.command(`check ${STACK}`, LEAD1)).status).toBe(200);
    const vpc = await waitFor('the stack indexed by its clean check', () =>
      w.withStore(async (s) => {
        const [index] = await s.listResourceIndexes({ stack: STACK });
        return index?.resources.find((r) => r.address === 'terraform_data.vpc')?.identifiers[0];
      }),
    );
    await changeByHand(w);
    // Someone changes the VPC in the console: its event names the VPC by its id.
    const base = tagEvent('unused', 'unused', 'alice-console', '0000c4a5-0001');
    const event = {
      ...base,
      source: 'aws.ec2',
      detail: {
        ...base.detail,
        eventSource: 'ec2.amazonaws.com',
        eventName: 'ModifyVpcAttribute',
        requestParameters: { vpcId: vpc, enableDnsSupport: { value: true } },
        resources: [],
        managementEvent: true,
      },
    };
    expect((await postChangeEvent(w.base, event, secret)).status).toBe(202);
    const waiting = () => w.withStore(async (s) => (await s.readPendingChanges(STACK)).changes.map((c) => c.eventId));
    expect(await waiting()).toEqual(['0000c4a5-0001']);
    // Killed ten minutes before its window would close: that window and its check die with it.
    await w.kill9();
    expect(await w.withStore((s) => s.listRuns({ stack: STACK, states: ['drifted'] }))).toEqual([]);

    // The next start, with a short window: what waited since before it is checked once its window passed.
    const config = await readFile(w.configFile, 'utf8');
    expect(config).toContain('debounce: 10m');
    await writeFile(w.configFile, config.replace('debounce: 10m', 'debounce: 1s'));
    await w.start();
    const run = await waitFor('the stranded check to record drift', () =>
      w.withStore(async (s) => (await s.listRuns({ stack: STACK, states: ['drifted'] }))[0]),
    );
    expect(run.trigger).toBe('event');
    await waitFor('the alert', () => topLevel(w)[0]);
    await waitFor('the change to be answered', async () => ((await waiting()).length === 0 ? true : undefined));
    expect(topLevel(w)).toHaveLength(1);
  });
});
