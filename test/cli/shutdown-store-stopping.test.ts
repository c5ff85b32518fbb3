import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, HAS_BUILD, NO_BUILD_REASON } from '../helpers/cli.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import { closedPort } from '../helpers/ports.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/process-wait.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

/**
 * SIGTERM to `serve` while its Postgres goes away (a node drained, a failover): the server ends every
 * connection with 57P01 "terminating connection due to administrator command". The process must stop as
 * it was asked, exit 0 and say why, never die of an unhandled 'error' event on a pg client.
 */
const postgres = usePostgres();
let tf: TestTerraformEnv;
let env: Record<string, string | undefined>;
let config: string;

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-shutdown-pg-');
  const dir = join(tf.dir, 'site');
  await mkdir(dir);
  await writeFile(join(dir, 'main.tf'), 'resource "terraform_data" "site" {\n  input = "v1"\n}\n');
  env = { PATH: process.env.PATH, HOME: process.env.HOME, ...tf.env, DATABASE_URL: await postgres.createDatabase() };
  config = join(tf.dir, 'driftgate.yml');
  await writeFile(
    config,
    configYaml({
      dataDir: join(tf.dir, 'data'),
      store: { type: 'postgres', url: '${DATABASE_URL}' },
      stacks: [stackEntry('prod/site', dir)],
    }),
  );
});
afterAll(() => tf.cleanup());

async function startServe(): Promise<{ serve: ResultPromise; ready: () => Promise<boolean> }> {
  const port = await closedPort();
  const serve = execa('node', [BIN, 'serve', '--config', config, '--port', String(port)], {
    env,
    extendEnv: false,
    reject: false,
  });
  const ready = async () => {
    try {
      return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
    } catch {
      return false;
    }
  };
  await waitFor('serve to be ready', async () => ((await ready()) ? true : undefined), 60_000);
  return { serve, ready };
}

const unhandled = /Unhandled 'error' event|uncaughtException|unhandledRejection|^\s+at .*node_modules\/pg/m;

describe.skipIf(!HAS_BUILD || process.env.DRIFTGATE_TEST_POSTGRES_URL)(
  `serve stopped while Postgres stops (${HAS_BUILD ? 'built' : NO_BUILD_REASON})`,
  () => {
    it('exits 0 with its reason when SIGTERM comes while Postgres is shutting down', async () => {
      const { serve } = await startServe();
      const outage = postgres.outage!.begin();
      serve.kill('SIGTERM');
      const [result] = await Promise.all([serve, outage]);
      await postgres.outage!.end();
      expect(result.stderr).not.toMatch(unhandled);
      expect(result.exitCode).toBe(0);
      expect(result.stderr).toMatch(/SIGTERM/);
    });

    it('exits 0 when SIGTERM comes after Postgres went away', async () => {
      const { serve, ready } = await startServe();
      await postgres.outage!.begin();
      try {
        await waitFor('serve to see the store gone', async () => ((await ready()) ? undefined : true), 30_000);
        serve.kill('SIGTERM');
        const result = await serve;
        expect(result.stderr).not.toMatch(unhandled);
        expect(result.exitCode).toBe(0);
      } finally {
        await postgres.outage!.end();
      }
    });
  },
);
