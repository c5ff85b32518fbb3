import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/adapters/store/postgres/open-postgres-store.js';
import { editResourceInput } from '../../src/cli/commands/demo-drift.js';
import { StatusReportJson } from '../../src/cli/render/status-report.js';
import { runCli } from '../helpers/cli.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import { usePostgres } from '../helpers/postgres.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

/**
 * The one-shot commands on the shared store: what `driftgate check` records lands in Postgres (another
 * process reads it there), and the next check finds the drift it already knows.
 */
const postgres = usePostgres();
let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let config: string;
let dir: string;

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-cli-postgres-');
  dir = join(tf.dir, 'site');
  await mkdir(dir);
  await writeFile(join(dir, 'main.tf'), 'resource "terraform_data" "site" {\n  input = { tier = "gold" }\n}\n');
  env = { PATH: process.env.PATH, HOME: process.env.HOME, ...tf.env, DATABASE_URL: await postgres.createDatabase() };
  await execa('terraform', ['init', '-input=false'], { cwd: dir, env, extendEnv: false });
  await execa('terraform', ['apply', '-auto-approve', '-input=false'], { cwd: dir, env, extendEnv: false });
  config = join(tf.dir, 'driftgate.yml');
  await writeFile(
    config,
    configYaml({
      dataDir: join(tf.dir, 'data'),
      log: { level: 'silent' },
      store: { type: 'postgres', url: '${DATABASE_URL}' },
      stacks: [stackEntry('prod/site', dir)],
    }),
  );
  const baseline = await runCli(['check', '--all', '--config', config], { cwd: tf.dir, env });
  // Only check's progress line: no warning, no error.
  expect(baseline.stderr).toMatch(/^\[1\/1\] prod\/site: in sync \([\d.]+s\)\n$/);
  expect(baseline.code).toBe(0);
}, 120_000);
afterAll(() => tf.cleanup());

describe('driftgate on a Postgres store', () => {
  it('records a check in Postgres, and the next check knows the drift it found', async () => {
    await editResourceInput({ binary: 'terraform', env }, dir, { type: 'terraform_data', name: 'site' }, (input) => {
      input.tier = 'silver';
    });
    const first = await runCli(['check', '--all', '--config', config, '--json'], { cwd: tf.dir, env });
    expect(first.code).toBe(2);
    expect(JSON.parse(first.stdout).stacks[0]).toMatchObject({ stack: 'prod/site', status: 'drifted' });

    const store = await openPostgresStore({ url: env.DATABASE_URL! });
    try {
      const record = await store.getStack('prod/site');
      expect(record?.openDrift).toMatchObject({ counts: { update: 1 } });
      const runs = await store.listRuns({ stack: 'prod/site' });
      expect(runs.map((r) => r.state)).toEqual(['drifted', 'no_changes']);
    } finally {
      await store.close();
    }

    const second = await runCli(['check', '--all', '--config', config], { cwd: tf.dir, env });
    expect(second.code).toBe(2);
    expect(second.stdout).toMatch(/prod\/site\s+DRIFTED\s+\S+\s+~1 \(seen before\)/);

    // `driftgate status` reads the same from Postgres as from SQLite: the store port, no plan.
    const status = await runCli(['status', '--json', '--config', config], { cwd: tf.dir, env });
    expect(status.code).toBe(2);
    const [site] = StatusReportJson.parse(JSON.parse(status.stdout)).stacks;
    expect(site).toMatchObject({
      name: 'prod/site',
      status: 'drifted',
      counts: { update: 1 },
      lastCheck: { state: 'drifted' },
      openRuns: [{ state: 'drifted', approvals: [], approvalsNeeded: null }],
    });
    expect(site!.openRuns[0]!.id).toBe(site!.lastCheck!.runId);
  });

  it('names the store and where it is, never the password, when Postgres cannot be reached', async () => {
    const result = await runCli(['check', '--all', '--config', config], {
      cwd: tf.dir,
      env: { ...env, DATABASE_URL: 'postgres://driftgate:s3cr3t-pw@127.0.0.1:9/driftgate' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('127.0.0.1:9');
    expect(result.stderr).toContain('store.url');
    expect(result.stderr).not.toContain('s3cr3t-pw');
  });
});
