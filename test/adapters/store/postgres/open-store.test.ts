import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../../../src/adapters/store/open-store.js';
import { PostgresConnectError } from '../../../../src/adapters/store/postgres/errors.js';
import { closedPort } from '../../../helpers/ports.js';
import { usePostgres } from '../../../helpers/postgres.js';

const server = usePostgres();

describe('openStore', () => {
  it('opens Postgres when the config says so', async () => {
    const url = await server.createDatabase();
    const store = await openStore({ dataDir: '/nonexistent', store: { type: 'postgres', url, poolSize: 2 } });
    try {
      const run = await store.createRun({ stack: 'net', trigger: 'manual' });
      expect((await store.getRun(run.id))?.stack).toBe('net');
    } finally {
      await store.close();
    }
  });

  it('opens SQLite in <dataDir>/driftgate.db by default', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'driftgate-open-store-'));
    try {
      const store = await openStore({ dataDir });
      await store.upsertStack('net');
      await store.close();
      expect(existsSync(join(dataDir, 'driftgate.db'))).toBe(true);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('names host:port and store.url when nothing listens there, never the password', async () => {
    const port = await closedPort();
    const url = `postgres://driftgate:s3cret-pw@127.0.0.1:${port}/driftgate`;
    const err = await openStore({ dataDir: '/x', store: { type: 'postgres', url, poolSize: 1 } }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PostgresConnectError);
    const refused = err as PostgresConnectError;
    expect(refused).toMatchObject({ host: '127.0.0.1', port, configKey: 'store.url', reason: 'ECONNREFUSED' });
    expect(refused.retriable).toBe(true);
    expect(refused.message).toContain(`127.0.0.1:${port} (store.url)`);
    expect(refused.message).not.toContain('s3cret-pw');
    expect(String(refused.cause ?? '')).not.toContain('s3cret-pw');
  });

  it('says the login was refused for a wrong password, without repeating it', async () => {
    const url = new URL(await server.createDatabase());
    url.password = 'not-the-password';
    const err = await openStore({ dataDir: '/x', store: { type: 'postgres', url: url.toString(), poolSize: 1 } }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PostgresConnectError);
    expect(err).toMatchObject({ reason: '28P01', retriable: false, host: '127.0.0.1' });
    expect((err as Error).message).toMatch(/login refused/);
    expect((err as Error).message).not.toContain('not-the-password');
  });
});
