import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresAgentOps } from '../../src/adapters/store/postgres/agent-ops.js';
import { openPostgresWorkerRegistry } from '../../src/adapters/store/postgres/worker-registry.js';
import type { AgentOpStore } from '../../src/ports/agent-ops.js';
import { runCli } from '../helpers/cli.js';
import { type ConfigPatch, configYaml, stackEntry } from '../helpers/config-builder.js';
import { closedPort } from '../helpers/ports.js';
import { usePostgres } from '../helpers/postgres.js';

/**
 * `driftgate workers` on a real Postgres: a worker of `nonprod` heartbeats (and one stopped long ago) and
 * holds the lease of one plan op, two ops wait in `prod`'s agent queue with nobody to take them.
 */
const postgres = usePostgres();
let dir: string;
let url: string;
let queue: AgentOpStore;

const WORKERS: ConfigPatch = {
  store: { type: 'postgres', url: '${DATABASE_URL}' },
  artifacts: { type: 's3', bucket: 'plans', region: 'eu-west-1' },
  runners: { type: 'workers' },
};

async function writeConfig(name: string, patch: ConfigPatch): Promise<string> {
  const file = join(dir, name);
  await writeFile(
    file,
    configYaml(
      {
        dataDir: join(dir, 'data'),
        log: { level: 'silent' },
        stacks: [
          stackEntry('prod/site', join(dir, 'site'), { pool: 'prod' }),
          stackEntry('dev/site', join(dir, 'site'), { pool: 'nonprod', workspace: 'dev' }),
        ],
      },
      patch,
    ),
  );
  return file;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'driftgate-workers-cli-'));
  await mkdir(join(dir, 'site'));
  await writeFile(join(dir, 'site', 'main.tf'), 'resource "terraform_data" "site" {}\n');
  url = await postgres.createDatabase();
  const registry = await openPostgresWorkerRegistry({ url });
  const startedAt = new Date();
  await registry.beat({
    id: 'dev-1',
    pool: 'nonprod',
    host: 'runner-a',
    pid: 41,
    concurrency: 3,
    running: 1,
    startedAt,
  });
  await registry.beat({
    id: 'dev-0',
    pool: 'nonprod',
    host: 'runner-b',
    pid: 7,
    concurrency: 2,
    running: 0,
    startedAt,
  });
  await registry.close();
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  await db.query("UPDATE workers SET last_seen_at = last_seen_at - 600000 WHERE id = 'dev-0'");
  await db.end();
  // The control plane's agent API queue, which `driftgate workers` reads.
  queue = await openPostgresAgentOps({ url });
  const op = (id: string, pool: string, kind: 'plan' | 'apply') =>
    queue.enqueue({ id, pool, stack: `${pool}/site`, kind, request: {}, maxAttempts: 1 });
  await op('p1', 'prod', 'plan');
  await op('p2', 'prod', 'apply');
  await op('n1', 'nonprod', 'plan');
  await queue.claim('nonprod', ['plan'], { hash: 'h'.repeat(64), tokenId: 'dev-token', ms: 60_000 });
}, 60_000);
afterAll(async () => {
  await queue?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('driftgate workers', () => {
  it('lists each pool with its queue and its live and stale workers, and exits 2 for a pool nobody serves', async () => {
    const config = await writeConfig('driftgate.yml', WORKERS);
    const env = { DATABASE_URL: url };
    const json = await runCli(['workers', '--json', '--config', config], { cwd: dir, env });
    expect(json.stderr).toBe('');
    expect(json.code).toBe(2);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ version: 1, staleAfterSeconds: 30 });
    const [nonprod, prod] = report.pools;
    expect(prod).toMatchObject({ pool: 'prod', liveWorkers: 0, waiting: 2, active: 0, workers: [] });
    expect(prod.unservedSince).toEqual(expect.any(String));
    expect(nonprod).toMatchObject({
      pool: 'nonprod',
      liveWorkers: 1,
      capacity: 3,
      waiting: 0,
      active: 1,
      unservedSince: null,
    });
    expect(
      nonprod.workers.map((w: { id: string; host: string; pid: number; running: number; live: boolean }) => [
        w.id,
        w.host,
        w.pid,
        w.running,
        w.live,
      ]),
    ).toEqual([
      ['dev-1', 'runner-a', 41, 1, true],
      ['dev-0', 'runner-b', 7, 0, false],
    ]);

    const text = await runCli(['workers', '--config', config], { cwd: dir, env });
    expect(text.code).toBe(2);
    expect(text.stdout).toMatch(/pool prod: no live worker; 2 queued, 0 leased, oldest queued \S+ ago\n/);
    expect(text.stdout).toMatch(/! no worker for pool prod for \S+: start driftgate worker --pool prod/);
    expect(text.stdout).toContain('pool nonprod: 1 live worker (runs 3 at once); 0 queued, 1 leased\n');
    expect(text.stdout).toMatch(
      /dev-1 +runner-a +41 +3 +1 +\S+ ago +live\n +dev-0 +runner-b +7 +2 +0 +10m\S* ago +stale/,
    );
  });

  it('says a config without workers has none to list', async () => {
    const config = await writeConfig('local.yml', {});
    const result = await runCli(['workers', '--config', config], { cwd: dir, env: {} });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `driftgate workers: ${config} runs terraform in the driftgate process itself (runners: local, the default), so it has no worker pools to list. Pools need runners: {type: workers} and store: {type: postgres} (docs/scale-out.md).\n`,
    );
    expect(result.stderr).not.toContain('invalid config');
  });

  it('names the Postgres server it cannot reach, never the password', async () => {
    const config = await writeConfig('down.yml', WORKERS);
    const port = await closedPort();
    const result = await runCli(['workers', '--config', config], {
      cwd: dir,
      env: { DATABASE_URL: `postgres://driftgate:hunter2@127.0.0.1:${port}/driftgate` },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot connect to the run store at 127.0.0.1:${port} (store.url)`);
    expect(result.stderr).not.toContain('hunter2');
  });
});
