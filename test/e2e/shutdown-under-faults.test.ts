import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import { closedPort } from '../helpers/ports.js';
import { usePostgres } from '../helpers/postgres.js';
import { driftTags, holdStateLock, type PoolWorld, startPoolWorld, topLevel } from '../helpers/pool-world.js';
import { waitFor } from '../helpers/process-wait.js';
import { makeTerraformEnv } from '../helpers/terraform-env.js';
import { APPROVERS, LEAD1, NETWORK, textOf } from './fixtures.js';

/**
 * SIGTERM to `worker` and `serve` in every order against the faults around them: a control plane that never
 * answered or went away, a job running, the bucket down. Each process ends as it was asked: exit 0, the
 * reason in its log, never an unhandled 'error' event or rejection.
 */
const postgres = usePostgres();
let world: PoolWorld | undefined;
/** A person's terraform waiting at its prompt: answered, whatever happened to the test. */
const holders: { kill(): boolean }[] = [];
afterEach(async () => {
  for (const holder of holders.splice(0)) holder.kill();
  await world?.close();
  world = undefined;
});

const PROD = 'prod/app';
const AGENT = { type: 'workers', agent: { host: '127.0.0.1' } } as const;
const unhandled = /Unhandled 'error' event|uncaughtException|unhandledRejection|UnhandledPromiseRejection/;

describe.skipIf(!HAS_BUILD)(`shutdown under faults (${HAS_BUILD ? BIN : NO_BUILD_REASON})`, () => {
  it('a worker whose control plane never answered stops at SIGTERM, exit 0, saying why', async () => {
    // Failed before: the worker kept retrying its control plane and never saw the signal.
    const tf = await makeTerraformEnv('driftgate-worker-stop-');
    try {
      const dir = join(tf.dir, 'app');
      await mkdir(dir);
      await writeFile(join(dir, 'main.tf'), NETWORK);
      const config = join(tf.dir, 'driftgate.yml');
      await writeFile(
        config,
        configYaml({
          dataDir: join(tf.dir, 'data'),
          runners: { type: 'workers' },
          stacks: [stackEntry(PROD, dir, { pool: 'prod' })],
        }),
      );
      const worker = execa(
        'node',
        [BIN, 'worker', '--pool', 'prod', '--config', config, '--port', String(await closedPort())],
        {
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            ...tf.env,
            DRIFTGATE_CONTROL_PLANE_URL: `http://127.0.0.1:${await closedPort()}`,
            DRIFTGATE_POOL_TOKEN: 'dgp1_no-control-plane-made-this',
          },
          extendEnv: false,
          reject: false,
        },
      );
      let logs = '';
      worker.stderr?.on('data', (chunk: Buffer) => {
        logs += chunk.toString('utf8');
      });
      await waitFor('the worker to retry its control plane', () =>
        logs.includes('cannot reach the control plane') ? true : undefined,
      );
      worker.kill('SIGTERM');
      const ended = await waitFor('the worker to exit', () => (worker.exitCode !== null ? true : undefined), 20_000)
        .then(() => worker)
        .finally(() => worker.kill('SIGKILL'));
      expect(ended.stderr).not.toMatch(unhandled);
      expect(ended.stderr).toMatch(/stopped: SIGTERM received, before the control plane/);
      expect(ended.exitCode).toBe(0);
    } finally {
      await tf.cleanup();
    }
  });

  it('a worker finishes its running job, serve stops with its bucket down, a worker stops with its control plane gone', async () => {
    world = await startPoolWorld({
      databaseUrl: await postgres.createDatabase(),
      stacks: { [PROD]: NETWORK },
      stackSettings: { [PROD]: { environment: 'prod', pool: 'prod' } },
      config: { ...APPROVERS, runners: AGENT },
    });
    const w = world;
    await w.applyWithTerraform(PROD);
    const serve = await w.serve();
    const first = await w.worker('prod');
    await driftTags(w, PROD);

    // A person's terraform holds the state lock: the worker's plan waits on it, its job running.
    const { terraform: holder } = await holdStateLock(w, PROD);
    holders.push(holder);
    expect((await w.command(serve, `check ${PROD}`, LEAD1)).status).toBe(200);
    await waitFor('the worker to start the plan', () =>
      first.logs().some((l) => l.includes('"job started"')) ? true : undefined,
    );
    first.sigterm();
    await waitFor('the worker to say it stops', () =>
      first.logs().some((l) => l.includes('stopping: SIGTERM received')) ? true : undefined,
    );
    holder.stdin?.end('no\n');
    await holder;
    // It finished the plan it held and answered it before leaving: the drift is told, once.
    expect(await first.ended).toBe(0);
    const firstLogs = first.logs().join('\n');
    expect(firstLogs).not.toMatch(unhandled);
    expect(firstLogs).toMatch(/"taken":true[^\n]*"job done"/);
    expect(firstLogs).toContain('stopped: SIGTERM received');
    const alert = await waitFor('the alert', () =>
      topLevel(w).find((m) => textOf(m).includes(`Drift detected in ${PROD}`)),
    );
    expect(alert).toBeDefined();

    // The bucket goes down: a check's plan comes back and cannot be kept; serve is stopped meanwhile.
    const second = await w.worker('prod');
    await w.s3Down();
    await driftTags(w, PROD);
    expect((await w.command(serve, `check ${PROD}`, LEAD1)).status).toBe(200);
    await waitFor('the second worker to answer the plan', () =>
      second.logs().some((l) => l.includes('"job done"')) ? true : undefined,
    );
    serve.sigterm();
    expect(await serve.ended).toBe(0);
    const serveLogs = serve.logs().join('\n');
    expect(serveLogs).not.toMatch(unhandled);
    expect(serveLogs).toContain('stopped: SIGTERM received');

    // No control plane left: the worker's claims fail and are retried until it is asked to stop.
    await waitFor('the worker to miss its control plane', () =>
      second.logs().some((l) => l.includes('claiming a job failed')) ? true : undefined,
    );
    second.sigterm();
    expect(await second.ended).toBe(0);
    const secondLogs = second.logs().join('\n');
    expect(secondLogs).not.toMatch(unhandled);
    expect(secondLogs).toContain('stopped: SIGTERM received');
  }, 300_000);
});
