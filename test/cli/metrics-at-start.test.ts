import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/adapters/store/sqlite/open-sqlite-store.js';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { configYaml } from '../helpers/config-builder.js';
import { closedPort } from '../helpers/ports.js';
import { waitFor } from '../helpers/process-wait.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

const COUNTS = { create: 0, update: 1, delete: 0, replace: 0, read: 0 };

let tf: TestTerraformEnv | undefined;
let child: ResultPromise | undefined;
afterEach(async () => {
  if (child?.exitCode === null) {
    child.kill('SIGTERM');
    await child;
  }
  await tf?.cleanup();
  tf = child = undefined;
});

describe.skipIf(!HAS_BUILD)(`driftgate serve /metrics at start (${HAS_BUILD ? 'built' : NO_BUILD_REASON})`, () => {
  it('reports the drifted stacks the store holds before any check ran, and logs JSON', async () => {
    tf = await makeTerraformEnv('driftgate-metrics-');
    const repo = join(tf.dir, 'repo');
    const data = join(tf.dir, 'data');
    for (const name of ['prod/app', 'prod/database', 'dev/app']) {
      await mkdir(join(repo, name), { recursive: true });
      await writeFile(join(repo, name, 'main.tf'), 'resource "terraform_data" "x" {}\n');
    }
    const config = join(tf.dir, 'driftgate.yml');
    // Scheduled once a year: no check runs while the test looks.
    await writeFile(
      config,
      configYaml({
        dataDir: data,
        defaults: { schedule: '0 0 1 1 *' },
        stacks: ['prod/app', 'prod/database', 'dev/app'].map((name) => ({ name, dir: join(repo, name) })),
      }),
    );
    // What an earlier process found: two stacks drifted.
    await mkdir(data, { recursive: true });
    const store = openSqliteStore({ path: join(data, 'driftgate.db') });
    await store.openDrift('prod/app', { fingerprint: 'f1', runId: 'r_before_1', counts: COUNTS });
    await store.openDrift('prod/database', { fingerprint: 'f2', runId: 'r_before_2', counts: COUNTS });
    await store.upsertStack('dev/app');
    await store.close();

    const port = await closedPort();
    child = execa('node', [BIN, 'serve', '--config', config, '--port', String(port)], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...tf.env },
      extendEnv: false,
      reject: false,
    });
    const metrics = await waitFor('/metrics', async () => {
      if (child?.exitCode !== null) throw new Error(`serve exited: ${(await child)?.stderr}`);
      const res = await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => undefined);
      const text = res?.ok ? await res.text() : undefined;
      // The store's gauges appear once serve has opened it (the port is taken before).
      return text?.includes('driftgate_drifted_stacks') ? text : undefined;
    });
    expect(metrics).toMatch(/^driftgate_drifted_stacks 2$/m);
    expect(metrics).toMatch(/^driftgate_outbox_pending 0$/m);

    child.kill('SIGTERM');
    const { exitCode, stderr } = await child;
    expect(exitCode).toBe(0);
    // serve is for machines: JSON lines on stderr at log.level (info by default).
    const first = JSON.parse(String(stderr).split('\n')[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({ level: 30, msg: 'driftgate serving', stacks: 3, port });
  });
});
