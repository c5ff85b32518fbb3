import { describe, expect, it } from 'vitest';
import { forbiddenVariablesHeld } from '../../src/app/agent-worker.js';
import { workerPoolIssues } from '../../src/config/runners.js';
import { validateConfigText } from '../../src/config/load.js';
import { runCli } from '../helpers/cli.js';

const parse = (yaml: string, env: Record<string, string> = {}) =>
  validateConfigText(yaml, { baseDir: '/srv/driftgate', env });

const STACK =
  'stacks:\n  - { name: prod/site, dir: /srv/stacks/site, pool: prod }\n  - { name: dev/site, dir: /srv/stacks/dev }';

/** A config with workers and what they need: the shared store and S3 artifacts. */
const parseWorkers = () =>
  parse(
    [
      'version: 1',
      'store: { type: postgres, url: "${DATABASE_URL}" }',
      'artifacts: { type: s3, bucket: plans, region: eu-west-1 }',
      'runners: { type: workers }',
      STACK,
    ].join('\n'),
    { DATABASE_URL: 'postgres://driftgate:pw@db:5432/driftgate' },
  );

describe('runners and pools in the config', () => {
  it('runs terraform locally unless told otherwise, and gives every stack a pool', async () => {
    const result = await parse(`version: 1\n${STACK}`);
    expect(result.issues).toEqual([]);
    expect(result.config?.runners).toEqual({ type: 'local' });
    expect(result.config?.stacks.map((s) => [s.name, s.pool])).toEqual([
      ['prod/site', 'prod'],
      ['dev/site', 'default'],
    ]);
  });

  it('takes a default pool from defaults', async () => {
    const result = await parse(`version: 1\ndefaults: { pool: nonprod }\n${STACK}`);
    expect(result.config?.stacks.map((s) => s.pool)).toEqual(['prod', 'nonprod']);
  });

  it('accepts workers with the shared store and artifacts, with their defaults', async () => {
    const result = await parseWorkers();
    expect(result.issues).toEqual([]);
    expect(result.config?.runners).toMatchObject({
      type: 'workers',
      workerStaleAfter: 30_000,
      unservedAlertAfter: 300_000,
    });
    // The agent API, on its own port: the only way workers take jobs.
    expect(result.config?.runners).toMatchObject({ agent: { port: 3001, concurrency: 32, queueWait: 1_800_000 } });
  });

  it('starts no worker for a config that runs terraform in serve, or for a pool no stack is in', async () => {
    const local = await parse(`version: 1\n${STACK}`);
    expect(workerPoolIssues(local.config!, 'prod', '`driftgate worker` takes the jobs of')[0]?.message).toBe(
      '`driftgate worker` takes the jobs of a control plane with runners: {type: workers}; with runners: {type: local} (the default) serve runs terraform itself',
    );
    const workers = await parseWorkers();
    expect(workerPoolIssues(workers.config!, 'prd', 'x')).toEqual([
      {
        path: '--pool',
        message: `pool "prd" has no stacks in this config (its pools: default, prod): a typo, or a config that disagrees with the control plane's`,
      },
    ]);
  });

  it("starts no worker that holds the store owner role's URL: it could switch the audit's guard off", async () => {
    const workers = await parseWorkers();
    const env = { DATABASE_OWNER_URL: 'postgres://owner:pw-owner@db:5432/driftgate' };
    expect(forbiddenVariablesHeld(workers.config!, env)).toEqual(['DATABASE_OWNER_URL']);
  });

  it("starts no direct worker, nor doctors one: without the control plane's address both say what to set and where the way over is", async () => {
    const env = { DATABASE_URL: 'postgres://driftgate:pw@db:5432/driftgate' };
    const result = await runCli(['worker', '--pool', 'prod'], { cwd: import.meta.dirname, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "driftgate worker: DRIFTGATE_CONTROL_PLANE_URL is not set: a worker takes its pool's jobs from the control plane's agent API. Set DRIFTGATE_CONTROL_PLANE_URL (e.g. https://driftgate-agent:3001) and DRIFTGATE_POOL_TOKEN (driftgate pool token create prod, on the control plane), and remove DATABASE_URL and the bucket's keys: see deploy/README.md \"From direct workers\"\n",
    );
    // `doctor --pool` where such a worker runs: the same words, as a doctor line with its fix.
    const doctor = await runCli(['doctor', '--pool', 'prod'], { cwd: import.meta.dirname, env });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toBe(
      [
        "FAIL control plane: DRIFTGATE_CONTROL_PLANE_URL is not set: a worker takes its pool's jobs from the control plane's agent API; fix: Set DRIFTGATE_CONTROL_PLANE_URL (e.g. https://driftgate-agent:3001) and DRIFTGATE_POOL_TOKEN (driftgate pool token create prod, on the control plane), and remove DATABASE_URL and the bucket's keys: see deploy/README.md \"From direct workers\"",
        "1 failed: a worker's other checks need the control plane's agent API",
        '',
      ].join('\n'),
    );
  });

  it('takes change events beside workers: the workers keep the index and attribute drift', async () => {
    const result = await parse(
      [
        'version: 1',
        'store: { type: postgres, url: "${DATABASE_URL}" }',
        'artifacts: { type: s3, bucket: plans, region: eu-west-1 }',
        'runners: { type: workers }',
        'changeEvents: { secretEnv: EVENTS_SECRET, cloudTrail: { region: eu-west-1 } }',
        STACK,
      ].join('\n'),
      { DATABASE_URL: 'postgres://driftgate:pw@db:5432/driftgate' },
    );
    expect(result.issues).toEqual([]);
    expect(result.config?.changeEvents?.cloudTrail).toEqual({ lookup: true, region: 'eu-west-1' });
    // Without a region, each worker asks CloudTrail in its own environment's (its pool's) region.
    const perPool = await parse(
      [
        'version: 1',
        'store: { type: postgres, url: "${DATABASE_URL}" }',
        'artifacts: { type: s3, bucket: plans, region: eu-west-1 }',
        'runners: { type: workers }',
        'changeEvents: { secretEnv: EVENTS_SECRET }',
        STACK,
      ].join('\n'),
      { DATABASE_URL: 'postgres://driftgate:pw@db:5432/driftgate' },
    );
    expect(perPool.issues).toEqual([]);
  });

  it('refuses workers on a local store or local artifacts, saying what to write', async () => {
    const result = await parse(`version: 1\nrunners: { type: workers }\n${STACK}`);
    expect(result.issues).toEqual([
      {
        path: 'store.type',
        message: 'runners: {type: workers} needs the shared store: store: {type: postgres, url: ${DATABASE_URL}}',
      },
      {
        path: 'artifacts.type',
        message:
          'runners: {type: workers} needs saved plans every process can read: artifacts: {type: s3, bucket: ...}',
      },
    ]);
  });

  it('refuses a pool name that cannot name a queue, where it is written', async () => {
    const result = await parse('version: 1\nstacks:\n  - { name: prod/site, dir: /srv/stacks/site, pool: "Prod EU" }');
    expect(result.issues).toEqual([
      {
        path: 'stacks[0].pool',
        message:
          'a pool name: lowercase letters, digits and dashes, at most 40, starting and ending with a letter or digit',
      },
    ]);
  });
});
