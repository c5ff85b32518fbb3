/**
 * The processes of the agent-pools benchmark: `driftgate serve` and `driftgate worker` started from the
 * built CLI as an operator would, and what the benchmark reads of Postgres (its server's process,
 * transactions committed, the runs in the store).
 */
import { readFileSync } from 'node:fs';
import { execa, type ResultPromise } from 'execa';
import pg from 'pg';
import { closedPort } from '../test/helpers/ports.js';
import { waitFor } from '../test/helpers/process-wait.js';
import { treeCpuSeconds } from './proc-cpu.js';

export interface BenchProcess {
  role: string;
  pid: number;
  /** CPU seconds of its tree so far (driftgate, terraform and its providers). */
  cpu(): number;
  stop(): Promise<void>;
}

/** Starts `node bin ...args --config configFile --port P` and waits for its /readyz. */
export async function startDriftgate(
  role: string,
  options: { bin: string; args: string[]; configFile: string; env: Record<string, string>; cwd: string },
): Promise<BenchProcess> {
  const port = await closedPort();
  const child: ResultPromise = execa(
    'node',
    [options.bin, ...options.args, '--config', options.configFile, '--port', String(port)],
    { env: options.env, extendEnv: false, reject: false, cwd: options.cwd },
  );
  // Only the tail is kept: it is what says why a process that should not have stopped did.
  const tail: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    tail.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    tail.splice(0, Math.max(0, tail.length - 40));
  });
  await waitFor(
    `${role} to be ready`,
    async () => {
      if (child.exitCode !== null) throw new Error(`${role} exited: ${tail.join('\n')}`);
      try {
        return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined;
      } catch {
        return undefined;
      }
    },
    60_000,
  );
  const pid = child.pid!;
  return {
    role,
    pid,
    cpu: () => treeCpuSeconds(pid),
    async stop() {
      child.kill('SIGTERM');
      await child;
    },
  };
}

/** One connection to the benchmark's database, for what the benchmark measures. */
export interface BenchDatabase {
  /** The Postgres server's own process (the postmaster, parent of every backend). */
  serverPid: number;
  /** Transactions committed or rolled back in this database so far, as the statistics collector has them. */
  transactions(): Promise<number>;
  /** Runs in the store by state. */
  runStates(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export async function openBenchDatabase(url: string): Promise<BenchDatabase> {
  const client = new pg.Client({ connectionString: url, application_name: 'driftgate-bench' });
  await client.connect();
  const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const status = readFileSync(`/proc/${backend}/status`, 'utf8');
  const serverPid = Number(/^PPid:\s+(\d+)/m.exec(status)![1]);
  return {
    serverPid,
    async transactions() {
      // The counters of other backends reach the statistics at most a second late: read a settled value.
      await client.query('SELECT pg_stat_clear_snapshot()');
      const row = (
        await client.query<{ n: string }>(
          'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
        )
      ).rows[0]!;
      return Number(row.n);
    },
    async runStates() {
      const rows = (
        await client.query<{ state: string; n: string }>('SELECT state, count(*) AS n FROM runs GROUP BY state')
      ).rows;
      return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
    },
    close: () => client.end(),
  };
}

export const percentile = (values: number[], p: number): number =>
  values.length
    ? [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!
    : NaN;
