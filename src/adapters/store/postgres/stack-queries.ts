import { CLEAR_DRIFT, type StackMethods } from '../shared/query-groups.js';
import type { RunStore } from '../../../ports/store.js';
import { toStack } from '../shared/rows.js';
import { changes, ensureStack, firstRow, type PgContext, rows } from './postgres-context.js';

type StackQueries = Pick<RunStore, StackMethods>;

export function stackQueries(ctx: PgContext): StackQueries {
  const get = async (on: PgContext, name: string, forUpdate = false) => {
    const row = await firstRow(on, `SELECT * FROM stacks WHERE name = $1${forUpdate ? ' FOR UPDATE' : ''}`, [name]);
    return row === undefined ? undefined : toStack(row);
  };

  /** Runs one UPDATE on a stack row (its name is the last parameter), creating the row first. */
  const write = (sql: string, name: string, ...params: unknown[]) =>
    ctx.transaction(async (tx) => {
      await ensureStack(tx, name);
      await tx.db.query(sql, [...params, name]);
    });

  return {
    upsertStack: (name) =>
      ctx.transaction(async (tx) => {
        await ensureStack(tx, name);
        return (await get(tx, name))!;
      }),
    getStack: (name) => get(ctx, name),
    listStacks: async () => (await rows(ctx, 'SELECT * FROM stacks ORDER BY name')).map(toStack),

    // A blocked stack stays blocked whatever a check reports: only a person who has looked may unblock it.
    setStackStatus: (name, status, lastRunId) =>
      write(
        `UPDATE stacks SET status = CASE WHEN blocked_reason IS NULL THEN $1 ELSE 'blocked' END,
           last_check_at = $2, last_run_id = COALESCE($3, last_run_id) WHERE name = $4`,
        name,
        status,
        ctx.nowMs(),
        lastRunId ?? null,
      ),

    // The stack row is locked first, so two checks recording the same drift at once see each other:
    // one opens it, the other refreshes it (as SQLite's one-writer-at-a-time gives).
    openDrift: (name, drift) =>
      ctx.transaction(async (tx) => {
        await ensureStack(tx, name);
        await get(tx, name, true);
        const now = tx.nowMs();
        const refreshed = await changes(
          tx,
          'UPDATE stacks SET drift_last_seen_at = $1, drift_run_id = $2 WHERE name = $3 AND drift_fingerprint = $4',
          [now, drift.runId, name, drift.fingerprint],
        );
        if (refreshed > 0) return false;
        await tx.db.query(
          `UPDATE stacks SET drift_fingerprint = $1, drift_run_id = $2, drift_first_seen_at = $3,
             drift_last_seen_at = $3, drift_counts = $4 WHERE name = $5`,
          [drift.fingerprint, drift.runId, now, JSON.stringify(drift.counts), name],
        );
        return true;
      }),

    closeDrift: (name) =>
      ctx.transaction(async (tx) => {
        const open = (await get(tx, name, true))?.openDrift;
        if (open) await tx.db.query(`UPDATE stacks SET ${CLEAR_DRIFT} WHERE name = $1`, [name]);
        return open;
      }),

    blockStack: (name, reason) =>
      write("UPDATE stacks SET status = 'blocked', blocked_reason = $1 WHERE name = $2", name, reason),
    unblockStack: (name) => write("UPDATE stacks SET status = 'unknown', blocked_reason = NULL WHERE name = $1", name),
    setLastAppliedCommit: (name, sha) => write('UPDATE stacks SET last_applied_commit = $1 WHERE name = $2', name, sha),

    // One UPDATE: Postgres re-reads a row another writer changed meanwhile, so no check is counted twice.
    countSamePlan: (name, fingerprint) =>
      ctx.transaction(async (tx) => {
        await ensureStack(tx, name);
        const row = (await firstRow(
          tx,
          `UPDATE stacks SET
             same_plan_checks = CASE WHEN $1::text IS NULL THEN 0
               WHEN same_plan_fingerprint = $1::text THEN same_plan_checks + 1 ELSE 1 END,
             same_plan_fingerprint = $1::text
           WHERE name = $2 RETURNING same_plan_checks`,
          [fingerprint ?? null, name],
        )) as { same_plan_checks: number };
        return row.same_plan_checks;
      }),
  };
}
