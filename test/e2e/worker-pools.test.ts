import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres.js';
import { driftTags, holdStateLock, type PoolWorld, startPoolWorld, topLevel } from '../helpers/pool-world.js';
import { waitFor } from '../helpers/process-wait.js';
import { APPROVERS, LEAD1, LEAD2, textOf } from './fixtures.js';

const postgres = usePostgres();
let world: PoolWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/**
 * A provisioner that writes down, at apply time, the environment of terraform (its parent) and of the
 * process that started terraform, and that process's command line.
 */
const PROBED = `
resource "terraform_data" "vpc" {
  input = { cidr = "10.0.0.0/16", tags = { Name = "main", Team = "core" } }
}
resource "terraform_data" "probe" {
  input = "probe"
  provisioner "local-exec" {
    command = <<-EOT
      tf=$PPID
      starter=$(awk '{print $4}' /proc/$tf/stat)
      tr '\\0' '\\n' < /proc/$tf/environ > terraform.env
      tr '\\0' '\\n' < /proc/$starter/environ > starter.env
      tr '\\0' ' ' < /proc/$starter/cmdline > starter.cmdline
    EOT
  }
}
`;

const NONPROD = `
resource "terraform_data" "vpc" {
  input = { cidr = "10.1.0.0/16", tags = { Name = "dev", Team = "core" } }
}
`;

/** Its apply marks that it began, then takes five minutes: long enough to kill its worker meanwhile. */
const SLOW = `
resource "terraform_data" "vpc" {
  input = { cidr = "10.2.0.0/16", tags = { Name = "batch", Team = "core" } }
}
resource "terraform_data" "slow" {
  input = "slow"
  provisioner "local-exec" {
    command = "touch apply-began; test -z $SETUP && sleep 300; true"
  }
}
`;

const PROD = 'prod/app';
const BATCH = 'nonprod/batch';
const DEV = 'nonprod/app';

/** Secrets of the control plane, by name: none may reach a worker's terraform. */
const BOT_SECRETS = /^(SLACK_|GITHUB_|PAGERDUTY)/m;
/** The agent API on every replica; each `serve` gets its own port (`--agent-port`), workers one address. */
const AGENT = { type: 'workers', agent: { host: '127.0.0.1' } } as const;
/** The prod pool's cloud, which only prod's workers hold. */
const PROD_CLOUD = { AWS_ACCESS_KEY_ID: 'prod-pool-key-id', AWS_SECRET_ACCESS_KEY: 'prod-pool-secret' };

describe.skipIf(!HAS_BUILD)(`runners: workers, two replicas (${HAS_BUILD ? BIN : NO_BUILD_REASON})`, () => {
  it('plans on the pools’ workers, takes approvals on either replica, and applies once on a prod worker without the bot’s secrets', async () => {
    world = await startPoolWorld({
      databaseUrl: await postgres.createDatabase(),
      stacks: { [PROD]: PROBED, [DEV]: NONPROD },
      stackSettings: { [PROD]: { environment: 'prod', pool: 'prod' }, [DEV]: { pool: 'nonprod' } },
      config: { ...APPROVERS, runners: { ...AGENT, unservedAlertAfter: '2s' } },
    });
    const w = world;
    for (const stack of [PROD, DEV]) await w.applyWithTerraform(stack);
    const probeFiles = ['terraform.env', 'starter.env', 'starter.cmdline'].map((f) => join(w.stackDir(PROD), f));
    await Promise.all(probeFiles.map((f) => rm(f, { force: true })));

    const [serveA, serveB] = [await w.serve(), await w.serve()];
    const prodWorkers = [await w.worker('prod', PROD_CLOUD), await w.worker('prod', PROD_CLOUD)];
    // Given a bot secret by mistake: it refuses to start, naming it.
    await expect(w.worker('nonprod', { SLACK_BOT_TOKEN: 'xoxb-given-to-a-worker-by-mistake' })).rejects.toThrow(
      /environment SLACK_BOT_TOKEN: a worker on the agent API must not hold the control plane's secrets/,
    );
    // Given one replica's own address: it takes the jobs the other replica queues (Postgres tells it).
    const devWorker = await w.worker('nonprod', { DRIFTGATE_CONTROL_PLANE_URL: serveA.agentUrl! });

    await driftTags(w, PROD);
    await execa('terraform', ['state', 'rm', 'terraform_data.probe'], {
      cwd: w.stackDir(PROD),
      env: w.baseEnv,
      extendEnv: false,
    });
    await driftTags(w, DEV);

    expect((await w.command(serveB, `check ${PROD} ${DEV}`, LEAD1)).status).toBe(200);
    const alerts = await waitFor('both alerts', () => (topLevel(w).length >= 2 ? topLevel(w) : undefined), 120_000);
    const prodAlert = alerts.find((m) => textOf(m).includes(`Drift detected in ${PROD}`));
    expect(prodAlert).toBeDefined();
    expect(alerts.find((m) => textOf(m).includes(`Drift detected in ${DEV}`))).toBeDefined();
    // Each pool's stack was planned by that pool's workers; serveB queued both.
    const planned = (logs: string[], stack: string) =>
      logs.some((l) => l.includes('"job done"') && l.includes('"kind":"plan"') && l.includes(`"stack":"${stack}"`));
    expect(planned(devWorker.logs(), DEV)).toBe(true);
    expect(prodWorkers.some((p) => planned(p.logs(), PROD))).toBe(true);
    expect(prodWorkers.some((p) => planned(p.logs(), DEV))).toBe(false);
    expect(planned(devWorker.logs(), PROD)).toBe(false);

    const run = await w.withStore(async (store) => (await store.listRuns({ stack: PROD, states: ['drifted'] }))[0]);
    expect(run).toBeDefined();
    const message = { channel: prodAlert!.channel, ts: prodAlert!.ts };
    // Two approvals, each on another replica: the run is applied once.
    expect((await w.click(serveA, ACTION_IDS.approve, run!.id, LEAD1, message)).status).toBe(200);
    await waitFor('the first approval', async () =>
      (await w.withStore((s) => s.listApprovals(run!.id))).length === 1 ? true : undefined,
    );
    expect((await w.click(serveB, ACTION_IDS.approve, run!.id, LEAD2, message)).status).toBe(200);
    expect(run?.planSha256).toMatch(/^[0-9a-f]{64}$/);
    const applied = await waitFor(
      'the applied message',
      () => {
        const current = w.emulator.message(message.channel, message.ts);
        return /Applied in \d+ s/.test(textOf(current)) ? current : undefined;
      },
      120_000,
    );
    expect(textOf(applied)).toContain('verified: no drift');
    const audit = await w.withStore((s) => s.listAudit({ runId: run!.id }));
    expect(audit.filter((a) => a.action === 'apply_started')).toHaveLength(1);
    expect((await w.withStore((s) => s.getRun(run!.id)))?.state).toBe('applied');
    // One alert per stack, whichever replica learnt of it; the apply ran on a prod worker.
    expect(topLevel(w).filter((m) => textOf(m).includes(`Drift detected in ${PROD}`))).toHaveLength(1);
    const appliedOn = prodWorkers.filter((p) =>
      p.logs().some((l) => l.includes('"job done"') && l.includes('"kind":"apply"')),
    );
    expect(appliedOn).toHaveLength(1);

    // The provisioner ran under a prod worker, and neither it nor terraform held a bot secret.
    const [terraformEnv, starterEnv, starterCmdline] = await Promise.all(probeFiles.map((f) => readFile(f, 'utf8')));
    expect(starterCmdline).toContain('worker --pool prod');
    expect(terraformEnv).toContain(`AWS_ACCESS_KEY_ID=${PROD_CLOUD.AWS_ACCESS_KEY_ID}`);
    expect(terraformEnv).not.toMatch(BOT_SECRETS);
    // Nor the store's URL, nor the bucket's keys: a module that could write the store could write approvals.
    for (const env of [terraformEnv, starterEnv]) {
      expect(env).not.toMatch(BOT_SECRETS);
      expect(env).not.toContain('DATABASE_URL=');
      expect(env).not.toContain(w.s3.secretAccessKey);
    }

    // Health: each pool's workers, in Slack, on /metrics and on the command line.
    expect((await w.command(serveA, 'status', LEAD1)).status).toBe(200);
    const status = await waitFor('the status answer', () =>
      w.emulator.responses().find((r) => JSON.stringify(r.body).includes('Worker pools')),
    );
    expect(JSON.stringify(status.body)).toContain('*prod* · 2 live workers');
    const metrics = await (await fetch(`${serveA.base}/metrics`)).text();
    expect(metrics).toContain('driftgate_pool_workers{pool="prod"} 2');
    expect(metrics).toContain('driftgate_pool_workers{pool="nonprod"} 1');
    const listed = await execa('node', [BIN, 'workers', '--json', '--config', w.configFile], {
      env: { ...w.baseEnv, DRIFTGATE_DATA_DIR: join(w.tf.dir, 'data-cli') },
      extendEnv: false,
      reject: false,
    });
    expect(listed.exitCode).toBe(0);
    const report = JSON.parse(listed.stdout) as { pools: { pool: string; liveWorkers: number }[] };
    expect(report.pools.map((p) => [p.pool, p.liveWorkers])).toEqual([
      ['nonprod', 1],
      ['prod', 2],
    ]);

    // The nonprod worker stops: a check queued for its pool waits, and Slack is told instead of nothing.
    await devWorker.stop();
    expect((await w.command(serveA, `check ${DEV}`, LEAD1)).status).toBe(200);
    await waitFor(
      'the unserved pool notice',
      () => topLevel(w).find((m) => textOf(m).includes('No worker for pool nonprod')),
      60_000,
    );
  }, 300_000);

  it('survives a worker killed mid-plan and mid-apply and a Postgres restart: one alert, an interrupted apply said, work resumed', async () => {
    world = await startPoolWorld({
      databaseUrl: await postgres.createDatabase(),
      stacks: { [PROD]: NONPROD, [BATCH]: SLOW },
      stackSettings: { [PROD]: { environment: 'prod', pool: 'prod' }, [BATCH]: { pool: 'nonprod' } },
      // Locks that outlive the test: an apply whose worker died is interrupted by its lease, never a lock's TTL.
      config: { ...APPROVERS, runners: AGENT, defaults: { lockTtl: '1h' } },
    });
    const w = world;
    for (const stack of [PROD, BATCH]) await w.applyWithTerraform(stack, { SETUP: '1' });
    const serveA = await w.serve();
    const serveB = await w.serve();
    const prodWorkers = [await w.worker('prod'), await w.worker('prod')];
    const batchWorker = await w.worker('nonprod');
    const started = (p: { logs(): string[] }, stack: string, attempt: number) =>
      p
        .logs()
        .some(
          (l) =>
            l.includes('"job started"') &&
            l.includes('"kind":"plan"') &&
            l.includes(`"stack":"${stack}"`) &&
            l.includes(`"attempt":${attempt}`),
        );

    // Mid-plan: a person's terraform holds the state lock, so the plan waits; its worker is killed.
    await driftTags(w, PROD);
    const { terraform: holder } = await holdStateLock(w, PROD);
    expect((await w.command(serveA, `check ${PROD}`, LEAD1)).status).toBe(200);
    const first = await waitFor('a prod worker to take the plan', () => prodWorkers.find((p) => started(p, PROD, 1)));
    const other = prodWorkers.find((p) => p !== first)!;
    await first.kill9();
    // Its lease runs out and the plan goes back to the pool: the other prod worker takes it.
    await waitFor('the other prod worker to take it again', () => (started(other, PROD, 2) ? true : undefined), 90_000);
    holder.stdin?.end('no\n');
    await holder;
    const alert = await waitFor(
      'the prod alert',
      () => topLevel(w).find((m) => textOf(m).includes(`Drift detected in ${PROD}`)),
      120_000,
    );
    // The person who asked is told what the plan that finally answered found, not that a worker died.
    const answer = await waitFor('the answer to the check', () =>
      w.emulator
        .responses()
        .map((r) => JSON.stringify(r.body))
        .find((body) => body.includes('Check finished')),
    );
    expect(answer).toContain(`${PROD}: drifted`);
    expect(answer).not.toContain('interrupted');

    // Mid-apply: the batch stack's apply is under way on its worker when that worker is killed.
    await execa('terraform', ['state', 'rm', 'terraform_data.slow'], {
      cwd: w.stackDir(BATCH),
      env: w.baseEnv,
      extendEnv: false,
    });
    await rm(join(w.stackDir(BATCH), 'apply-began'), { force: true });
    expect((await w.command(serveB, `check ${BATCH}`, LEAD1)).status).toBe(200);
    const batchAlert = await waitFor(
      'the batch alert',
      () => topLevel(w).find((m) => textOf(m).includes(`Drift detected in ${BATCH}`)),
      120_000,
    );
    const batchRun = await w.withStore(async (s) => (await s.listRuns({ stack: BATCH, states: ['drifted'] }))[0]);
    await w.click(serveB, ACTION_IDS.approve, batchRun!.id, LEAD2, { channel: batchAlert.channel, ts: batchAlert.ts });
    await waitFor(
      'the apply to begin',
      () =>
        readFile(join(w.stackDir(BATCH), 'apply-began')).then(
          () => true,
          () => undefined,
        ),
      120_000,
    );
    await batchWorker.kill9();
    const interrupted = await waitFor(
      'the message to say the apply was interrupted',
      () => {
        const current = w.emulator.message(batchAlert.channel, batchAlert.ts);
        return textOf(current).includes('Apply interrupted') ? current : undefined;
      },
      120_000,
    );
    expect(textOf(interrupted)).toContain(`/drift unlock ${BATCH}`);
    expect((await w.withStore((s) => s.getRun(batchRun!.id)))?.state).toBe('interrupted');
    expect((await w.withStore((s) => s.getStack(BATCH)))?.blockedReason).toBeDefined();
    // Never tried on another worker, and said once.
    const batchAudit = (await w.withStore((s) => s.listAudit({ runId: batchRun!.id }))).map((a) => a.action);
    expect(batchAudit.filter((a) => a === 'apply_started')).toHaveLength(1);
    expect(batchAudit.filter((a) => a === 'apply_interrupted')).toHaveLength(1);

    // The leading replica is killed, then Postgres restarts: the replicas say they are not ready meanwhile,
    // and work resumes by itself on the one left, which now delivers Slack messages; the workers, whose
    // address led to both replicas, reach it alone.
    await serveA.kill9();
    await postgres.outage!.begin();
    await waitFor('serve to be unready', async () =>
      (await fetch(`${serveB.base}/readyz`)).status === 503 ? true : undefined,
    );
    await postgres.outage!.end();
    await waitFor('serve to be ready again', async () =>
      (await fetch(`${serveB.base}/readyz`)).status === 200 ? true : undefined,
    );
    await editResourceInput(
      { binary: 'terraform', env: w.baseEnv },
      w.stackDir(PROD),
      { type: 'terraform_data', name: 'vpc' },
      (input) => {
        (input.tags as Record<string, string>).Team = 'night-shift';
      },
    );
    expect((await w.command(serveB, `check ${PROD}`, LEAD1)).status).toBe(200);
    const second = await waitFor(
      'the new drift alert after the restart',
      () => topLevel(w).find((m) => m.ts !== alert.ts && textOf(m).includes(`Drift detected in ${PROD}`)),
      120_000,
    );
    expect(textOf(second)).toContain('night-shift');

    // Each check was told once; the plan whose worker died finished on another, its run not interrupted.
    expect(topLevel(w).filter((m) => textOf(m).includes(`Drift detected in ${PROD}`))).toEqual([alert, second]);
    expect(await w.withStore((s) => s.listRuns({ stack: PROD, states: ['interrupted'] }))).toEqual([]);
    expect(started(other, PROD, 1)).toBe(true);
  }, 400_000);
});
