import { describe, expect, it } from 'vitest';
import { validateConfigText } from '../../src/config/load.js';
import { ConfigFile } from '../../src/config/schema.js';

const URL_WITH_PASSWORD = 'postgres://driftgate:pw-9f8e7d@db.internal:5432/driftgate';

const yaml = (store: string) => `version: 1\nstacks:\n  - { name: net, dir: net }\n${store}`;

describe('store config', () => {
  it('defaults to SQLite', () => {
    expect(ConfigFile.parse({ version: 1 }).store).toEqual({ type: 'sqlite' });
  });

  it('takes a Postgres URL from the environment, with a default pool size, and masks it as a secret', async () => {
    const result = await validateConfigText(yaml('store:\n  type: postgres\n  url: ${DATABASE_URL}\n'), {
      baseDir: '/tmp',
      env: { DATABASE_URL: URL_WITH_PASSWORD },
    });
    expect(result.issues).toEqual([]);
    expect(result.config?.interpolated).toContain(URL_WITH_PASSWORD);
    expect(ConfigFile.parse({ version: 1, store: { type: 'postgres', url: URL_WITH_PASSWORD } }).store).toEqual({
      type: 'postgres',
      url: URL_WITH_PASSWORD,
      poolSize: 10,
    });
  });

  it('refuses what is not a Postgres URL without repeating the value, and a pool size out of range', async () => {
    const result = await validateConfigText(yaml('store:\n  type: postgres\n  url: ${DATABASE_URL}\n  poolSize: 0\n'), {
      baseDir: '/tmp',
      env: { DATABASE_URL: 'mysql://root:pw-9f8e7d@db/x' },
    });
    expect(result.issues.map((i) => i.path).sort()).toEqual(['store.poolSize', 'store.url']);
    expect(JSON.stringify(result.issues)).not.toContain('pw-9f8e7d');
    const missing = ConfigFile.safeParse({ version: 1, store: { type: 'postgres' } });
    expect(missing.success).toBe(false);
  });

  it("names the variable of the owner role's URL, never the URL itself", async () => {
    const named = await validateConfigText(
      yaml('store:\n  type: postgres\n  url: ${DATABASE_URL}\n  ownerUrlEnv: DRIFTGATE_DB_OWNER\n'),
      { baseDir: '/tmp', env: { DATABASE_URL: URL_WITH_PASSWORD } },
    );
    expect(named.issues).toEqual([]);
    expect(named.config?.store).toMatchObject({ ownerUrlEnv: 'DRIFTGATE_DB_OWNER' });
    const url = await validateConfigText(
      yaml('store:\n  type: postgres\n  url: ${DATABASE_URL}\n  ownerUrlEnv: ${DATABASE_OWNER_URL}\n'),
      { baseDir: '/tmp', env: { DATABASE_URL: URL_WITH_PASSWORD, DATABASE_OWNER_URL: 'postgres://o:pw-0wner@db/x' } },
    );
    expect(url.issues.map((i) => i.path)).toEqual(['store.ownerUrlEnv']);
    expect(JSON.stringify(url.issues)).not.toContain('pw-0wner');
  });
});
