/**
 * What the agent-pools benchmark reads of the agent API's ops as they pass: a trigger on the benchmark's
 * own database records, on the database's clock, when each op was queued, leased, answered and removed
 * (the control plane's waiter removes an op once it has seen its result). Installed on the benchmark's
 * database only, and dropped before anything is timed as a whole.
 */
import pg from 'pg';

const NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

export interface OpTimes {
  /** ms from the op's enqueue to its lease by a worker's claim. */
  claimMs: number[];
  /** ms from the worker's result being stored to the control plane's waiter removing the op. */
  outcomeMs: number[];
  /** ms from the lease to the worker's result being stored: the plan on the worker, and its HTTP round trips. */
  planMs: number[];
}

export interface OpsProbe {
  /** Ops removed so far (answered and seen by the control plane). */
  seen(): Promise<number>;
  times(): Promise<OpTimes>;
  /** Drops the trigger: nothing more is recorded, nothing more is paid for it. */
  drop(): Promise<void>;
  close(): Promise<void>;
}

/** Requires the agent_ops table (a serve with the agent API has migrated the database). */
export async function installOpsProbe(url: string): Promise<OpsProbe> {
  const client = new pg.Client({ connectionString: url, application_name: 'driftgate-bench-probe' });
  await client.connect();
  await client.query(`
    CREATE TABLE bench_op_times (id text PRIMARY KEY, created_at bigint, leased_at bigint, done_at bigint, removed_at bigint);
    CREATE FUNCTION bench_op_times() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        UPDATE bench_op_times SET removed_at = ${NOW_MS} WHERE id = OLD.id;
        RETURN OLD;
      END IF;
      -- The first lease only: a retried op's wait is not a claim's latency.
      IF NEW.state = 'leased' AND OLD.state = 'queued' AND NEW.attempts = 1 THEN
        INSERT INTO bench_op_times (id, created_at, leased_at) VALUES (NEW.id, NEW.created_at, NEW.updated_at)
          ON CONFLICT (id) DO NOTHING;
      ELSIF NEW.state = 'done' THEN
        UPDATE bench_op_times SET done_at = NEW.updated_at WHERE id = NEW.id;
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER bench_op_times AFTER UPDATE OR DELETE ON agent_ops FOR EACH ROW EXECUTE FUNCTION bench_op_times();
  `);
  return {
    async seen() {
      const row = (
        await client.query<{ n: string }>('SELECT count(*) AS n FROM bench_op_times WHERE removed_at IS NOT NULL')
      ).rows[0]!;
      return Number(row.n);
    },
    async times() {
      const rows = (
        await client.query<{ claim: string; outcome: string; plan: string }>(
          `SELECT leased_at - created_at AS claim, removed_at - done_at AS outcome, done_at - leased_at AS plan
             FROM bench_op_times WHERE removed_at IS NOT NULL AND done_at IS NOT NULL`,
        )
      ).rows;
      return {
        claimMs: rows.map((r) => Number(r.claim)),
        outcomeMs: rows.map((r) => Number(r.outcome)),
        planMs: rows.map((r) => Number(r.plan)),
      };
    },
    async drop() {
      await client.query('DROP TRIGGER bench_op_times ON agent_ops');
    },
    close: () => client.end(),
  };
}
