import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe } from '../../src/app/serve.js';
import { validateConfigText } from '../../src/config/load.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import { usePostgres } from '../helpers/postgres.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

/** While Postgres does not answer, serve says "not ready" (a load balancer sends clicks elsewhere), then recovers. */
const postgres = usePostgres();
let tf: TestTerraformEnv;

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-store-readiness-');
  await mkdir(join(tf.dir, 'site'));
  await writeFile(join(tf.dir, 'site', 'main.tf'), 'resource "terraform_data" "site" {}\n');
});
afterAll(() => tf.cleanup());

async function readyz(port: number): Promise<{ status: number; body: { ok: boolean; reason?: string } }> {
  const response = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: response.status, body: (await response.json()) as { ok: boolean; reason?: string } };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(process.env.DRIFTGATE_TEST_POSTGRES_URL)('readiness on a Postgres store', () => {
  it('answers 503 naming the store while Postgres is down, and 200 again once it is back', async () => {
    const url = await postgres.createDatabase();
    const yaml = configYaml({
      dataDir: join(tf.dir, 'data'),
      log: { level: 'silent' },
      store: { type: 'postgres', url: '${DATABASE_URL}' },
      stacks: [stackEntry('site', join(tf.dir, 'site'), { schedule: '0 0 1 1 *' })],
    });
    const config = (await validateConfigText(yaml, { baseDir: tf.dir, env: { DATABASE_URL: url } })).config!;
    const serve = await startServe(config, { env: { ...tf.env }, port: 0, storeHealthMs: 200 });
    try {
      expect(
        await until(
          () => readyz(serve.health.port),
          (r) => r.status === 200,
        ),
      ).toEqual({
        status: 200,
        body: { ok: true },
      });
      await postgres.outage!.begin();
      const down = await until(
        () => readyz(serve.health.port),
        (r) => r.status === 503,
      );
      expect(down.body.ok).toBe(false);
      expect(down.body.reason).toMatch(/^store: /);
      await postgres.outage!.end();
      await until(
        () => readyz(serve.health.port),
        (r) => r.status === 200,
      );
    } finally {
      await serve.stop();
    }
  });
});
