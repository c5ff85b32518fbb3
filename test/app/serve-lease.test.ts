import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServe, startServe } from '../../src/app/serve.js';
import { validateConfigText } from '../../src/config/load.js';
import type { DriftgateConfig } from '../../src/config/schema.js';
import { configYaml, stackEntry } from '../helpers/config-builder.js';
import { usePostgres } from '../helpers/postgres.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

/** Two `serve`s on one Postgres store would both run the schedule and deliver every Slack message twice. */
const postgres = usePostgres();
let tf: TestTerraformEnv;

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-serve-lease-');
  await mkdir(join(tf.dir, 'site'));
  await writeFile(join(tf.dir, 'site', 'main.tf'), 'resource "terraform_data" "site" {}\n');
});
afterAll(() => tf.cleanup());

async function configFor(url: string, dataDir: string): Promise<DriftgateConfig> {
  const yaml = configYaml({
    dataDir: join(tf.dir, dataDir),
    log: { level: 'silent' },
    store: { type: 'postgres', url: '${DATABASE_URL}' },
    stacks: [stackEntry('site', join(tf.dir, 'site'), { schedule: '0 0 1 1 *' })],
  });
  const result = await validateConfigText(yaml, { baseDir: tf.dir, env: { DATABASE_URL: url } });
  expect(result.issues).toEqual([]);
  return result.config!;
}

describe('serve on a Postgres store', () => {
  it('runs once per store: a second serve stops at start, and can start once the first is gone', async () => {
    const url = await postgres.createDatabase();
    const env = { ...tf.env };
    const first: RunningServe = await startServe(await configFor(url, 'a'), { env, port: 0 });
    try {
      await expect(startServe(await configFor(url, 'b'), { env, port: 0 })).rejects.toThrow(
        'another driftgate serve is running on this store (store.url): one serve per store in this version',
      );
      expect(first.health.port).toBeGreaterThan(0);
    } finally {
      await first.stop();
    }
    const second = await startServe(await configFor(url, 'b'), { env, port: 0 });
    await second.stop();
  });
});
