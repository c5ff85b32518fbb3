import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { expect, it } from 'vitest';
import { withTransaction } from '../../../../src/adapters/store/postgres/postgres-context.js';
import { usePostgres } from '../../../helpers/postgres.js';

const postgres = usePostgres();

/**
 * Postgres restarting while a transaction waits between two statements (the soak found it): the checked-out
 * connection ends with nobody's listener on it. The next statement fails, and the process lives on.
 */
it('fails the next statement of a transaction whose connection ended, and does not crash', async () => {
  const pool = new pg.Pool({ connectionString: await postgres.createDatabase() });
  pool.on('error', () => undefined);
  try {
    const transaction = withTransaction(pool, async (client) => {
      await client.query('SELECT 1');
      await postgres.outage!.begin();
      await sleep(500);
      await client.query('SELECT 2');
    });
    await expect(transaction).rejects.toThrow();
    await postgres.outage!.end();
    // The ended connection was not handed out again.
    expect((await pool.query<{ x: number }>('SELECT 1 AS x')).rows[0]?.x).toBe(1);
  } finally {
    await pool.end();
  }
}, 60_000);
