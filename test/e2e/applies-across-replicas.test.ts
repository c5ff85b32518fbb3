import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres.js';
import { holdStateLock, type PoolWorld, startPoolWorld, topLevel } from '../helpers/pool-world.js';
import { waitFor } from '../helpers/process-wait.js';
import { APPROVERS, LEAD1, LEAD2, textOf } from './fixtures.js';

const postgres = usePostgres();
let world: PoolWorld | undefined;
/** A person's terraform waiting at its prompt: answered, whatever happened to the test. */
const holders: { kill(): boolean }[] = [];
afterEach(async () => {
  for (const holder of holders.splice(0)) holder.kill();
  await world?.close();
  world = undefined;
});

const STACK = 'nonprod/app';
/** Its apply (the gate's create) marks that it began, then waits for the test's word. */
const GATED = `
resource "terraform_data" "vpc" {
  input = { cidr = "10.1.0.0/16", tags = { Name = "dev", Team = "core" } }
}
resource "terraform_data" "gate" {
  input = "gate"
  provisioner "local-exec" {
    command = "touch apply-began; test -n \\"$SETUP\\" || while [ ! -f release ]; do sleep 0.2; done"
  }
}
`;
const AGENT = { type: 'workers', agent: { host: '127.0.0.1' } } as const;

describe.skipIf(!HAS_BUILD)(`applies of one stack on two replicas (${HAS_BUILD ? BIN : NO_BUILD_REASON})`, () => {
  it('an apply approved while another replica holds the stack waits its turn and runs once, after the first; unlock leaves a live lock', async () => {
    // Failed before: the apply found the stack locked by the other replica and ended errored ("apply did not
    // start"), approved in vain.
    world = await startPoolWorld({
      databaseUrl: await postgres.createDatabase(),
      stacks: { [STACK]: GATED },
      stackSettings: { [STACK]: { pool: 'nonprod' } },
      config: { ...APPROVERS, runners: AGENT },
    });
    const w = world;
    await w.applyWithTerraform(STACK, { SETUP: '1' });
    await rm(join(w.stackDir(STACK), 'apply-began'));
    const [serveA, serveB] = [await w.serve(), await w.serve()];
    await w.worker('nonprod');
    // The gate's resource is gone from the state: the next plan creates it again, and its apply waits.
    await execa('terraform', ['state', 'rm', 'terraform_data.gate'], {
      cwd: w.stackDir(STACK),
      env: w.baseEnv,
      extendEnv: false,
    });
    expect((await w.command(serveA, `check ${STACK}`, LEAD1)).status).toBe(200);
    const alert = await waitFor('the alert', () => topLevel(w).find((m) => textOf(m).includes(STACK)), 120_000);
    const message = { channel: alert.channel, ts: alert.ts };
    const [first] = await w.withStore((s) => s.listRuns({ stack: STACK, states: ['drifted'] }));

    // Replica B checks the stack again, its plan held by a person's terraform holding the state lock.
    const { terraform: holder } = await holdStateLock(w, STACK);
    holders.push(holder);
    expect((await w.command(serveB, `check ${STACK}`, LEAD1)).status).toBe(200);
    await waitFor('replica B to hold the stack', async () =>
      (await w.withStore((s) => s.getLock(STACK)))?.runId !== undefined ? true : undefined,
    );
    const checking = (await w.withStore((s) => s.getLock(STACK)))!.runId;
    expect(checking).not.toBe(first!.id);
    // Asked of replica A, whose own scheduler runs nothing: B's check is seen by its lock, and left alone.
    // (Failed before: A broke the lock of B's running check.)
    expect((await w.command(serveA, `unlock ${STACK}`, LEAD1)).status).toBe(200);
    const refusal = await waitFor('the unlock answer', () =>
      w.emulator
        .responses()
        .map((r) => JSON.stringify(r.body))
        .find((body) => body.includes('its lock is not stale')),
    );
    expect(refusal).toContain(`Run ${checking} of ${STACK} is running in another driftgate process`);
    expect((await w.withStore((s) => s.getLock(STACK)))?.runId).toBe(checking);

    // The first run is approved on replica A meanwhile: its apply waits for B's check.
    expect((await w.click(serveA, ACTION_IDS.approve, first!.id, LEAD1, message)).status).toBe(200);
    await waitFor('the approval', async () =>
      (await w.withStore((s) => s.getRun(first!.id)))?.state === 'approved' ? true : undefined,
    );
    holder.stdin?.end('no\n');
    await holder;
    // B's check recorded its run; the first run's apply now holds the stack, its gate waiting.
    await waitFor('the first apply to begin', () =>
      existsSync(join(w.stackDir(STACK), 'apply-began')) ? true : undefined,
    );
    const second = await waitFor(
      'the second run',
      async () => (await w.withStore((s) => s.listRuns({ stack: STACK, states: ['drifted'] })))[0],
    );
    expect(second.id).toBe(checking);

    // The second run is approved on replica B while the first applies: it waits, then is tried once.
    expect((await w.click(serveB, ACTION_IDS.approve, second.id, LEAD2, message)).status).toBe(200);
    await waitFor('the second approval', async () =>
      (await w.withStore((s) => s.listApprovals(second.id))).length === 1 ? true : undefined,
    );
    await writeFile(join(w.stackDir(STACK), 'release'), '');
    const ended = await waitFor(
      'both runs to end',
      async () => {
        const runs = await w.withStore(async (s) => [await s.getRun(first!.id), await s.getRun(second.id)]);
        return runs.every((r) => r && !['approved', 'applying'].includes(r.state)) ? runs : undefined;
      },
      120_000,
    );
    expect(ended[0]?.state).toBe('applied');
    const audit = await w.withStore(async (s) => [
      ...(await s.listAudit({ runId: first!.id })),
      ...(await s.listAudit({ runId: second.id })),
    ]);
    const started = audit.filter((a) => a.action === 'apply_started').map((a) => a.runId);
    expect(started).toEqual([first!.id, second.id]);
    // Tried after the first, on the state the first left: terraform refuses its stale plan, and it says so.
    expect(audit.filter((a) => a.action === 'apply_not_started')).toEqual([]);
    expect(ended[1]?.state).toBe('expired');
    expect(audit.some((a) => a.runId === second.id && a.action === 'apply_refused_stale')).toBe(true);
  }, 300_000);
});
