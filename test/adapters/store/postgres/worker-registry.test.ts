import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openWorkerRegistry } from '../../../../src/adapters/store/open-store.js';
import { PostgresConnectError } from '../../../../src/adapters/store/postgres/errors.js';
import { openPostgresWorkerRegistry } from '../../../../src/adapters/store/postgres/worker-registry.js';
import { isLive } from '../../../../src/domain/pool/pool-health.js';
import { ConfigError } from '../../../../src/domain/errors.js';
import type { WorkerRegistry } from '../../../../src/ports/worker-registry.js';
import { closedPort } from '../../../helpers/ports.js';
import { usePostgres } from '../../../helpers/postgres.js';

const server = usePostgres();
const opened: (WorkerRegistry | pg.Pool)[] = [];
afterEach(async () => {
  for (const item of opened.splice(0)) await ('end' in item ? item.end() : item.close());
});

const started = new Date('2026-12-04T09:00:00Z');
const beat = (id: string, pool: string, running = 0) => ({
  id,
  pool,
  host: `host-${id}`,
  pid: 100,
  concurrency: 4,
  running,
  startedAt: started,
});

async function openOn(url: string, options: { now?: () => Date } = {}) {
  const registry = await openPostgresWorkerRegistry({ url, ...options });
  opened.push(registry);
  return registry;
}

/** Moves a worker's last heartbeat back, as if it had stopped beating `ms` ago. */
async function age(url: string, id: string, ms: number): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  opened.push(pool);
  await pool.query('UPDATE workers SET last_seen_at = last_seen_at - $2 WHERE id = $1', [id, ms]);
}

describe('the worker registry on postgres', () => {
  it('records a heartbeat once per worker and updates it in place', async () => {
    const url = await server.createDatabase();
    const registry = await openOn(url);
    await registry.beat(beat('w1', 'prod'));
    await registry.beat(beat('w2', 'nonprod'));
    await registry.beat({ ...beat('w1', 'prod', 3), concurrency: 6 });
    const workers = await registry.list();
    expect(workers.map((w) => w.id).sort()).toEqual(['w1', 'w2']);
    expect(workers.find((w) => w.id === 'w1')).toMatchObject({
      pool: 'prod',
      host: 'host-w1',
      pid: 100,
      concurrency: 6,
      running: 3,
      startedAt: started,
    });
  });

  it('is shared by every process on the database', async () => {
    const url = await server.createDatabase();
    const worker = await openOn(url);
    const control = await openOn(url);
    await worker.beat(beat('w1', 'prod'));
    expect((await control.list()).map((w) => w.id)).toEqual(['w1']);
    await worker.leave('w1');
    expect(await control.list()).toEqual([]);
  });

  it("dates a heartbeat on the reader's clock, measured by the database, so a stopped worker turns stale", async () => {
    const url = await server.createDatabase();
    // The reader's clock is a day ahead of the database's: the heartbeat is still seconds old.
    const ahead = new Date(Date.now() + 24 * 3600_000);
    const registry = await openOn(url, { now: () => ahead });
    await registry.beat(beat('w1', 'prod'));
    await registry.beat(beat('w2', 'prod'));
    await age(url, 'w2', 60_000);
    const [fresh, stopped] = await registry.list();
    expect(fresh?.id).toBe('w1');
    expect(isLive(fresh!, ahead, 30_000)).toBe(true);
    expect(stopped?.id).toBe('w2');
    expect(isLive(stopped!, ahead, 30_000)).toBe(false);
    expect(ahead.getTime() - stopped!.lastSeenAt.getTime()).toBeGreaterThanOrEqual(60_000);
  });

  it('forgets workers gone for a week when it is listed', async () => {
    const url = await server.createDatabase();
    const registry = await openOn(url);
    await registry.beat(beat('gone', 'prod'));
    await registry.beat(beat('weekend', 'prod'));
    await age(url, 'gone', 7 * 24 * 3600_000 + 1000);
    await age(url, 'weekend', 3 * 24 * 3600_000);
    expect((await registry.list()).map((w) => w.id)).toEqual(['weekend']);
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    opened.push(pool);
    expect((await pool.query('SELECT id FROM workers')).rows).toEqual([{ id: 'weekend' }]);
  });

  it('needs the Postgres store, and names the server, never the URL, when it cannot reach it', async () => {
    await expect(openWorkerRegistry({ store: { type: 'sqlite' } })).rejects.toThrow(ConfigError);
    const port = await closedPort();
    const err = await openWorkerRegistry({
      store: { type: 'postgres', url: `postgres://u:hunter2@127.0.0.1:${port}/db`, poolSize: 2 },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PostgresConnectError);
    expect((err as Error).message).toContain(`127.0.0.1:${port} (store.url)`);
    expect((err as Error).message).not.toContain('hunter2');
  });
});
