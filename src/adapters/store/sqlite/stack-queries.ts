import { CLEAR_DRIFT, type StackMethods } from '../shared/query-groups.js';
import type { RunStore } from '../../../ports/store.js';
import type { Synchronous } from './synchronous.js';
import { ensureStack, type StoreContext } from './sqlite-context.js';
import { toStack } from '../shared/rows.js';

type StackQueries = Pick<Synchronous<RunStore>, StackMethods>;

export function stackQueries(ctx: StoreContext): StackQueries {
  const get = (name: string) => {
    const row = ctx.stmt('SELECT * FROM stacks WHERE name = ?').get(name);
    return row === undefined ? undefined : toStack(row);
  };

  const openDrift = ctx.db.transaction((name: string, drift: Parameters<StackQueries['openDrift']>[1]): boolean => {
    ensureStack(ctx, name);
    const now = ctx.nowMs();
    const refreshed = ctx
      .stmt('UPDATE stacks SET drift_last_seen_at = ?, drift_run_id = ? WHERE name = ? AND drift_fingerprint = ?')
      .run(now, drift.runId, name, drift.fingerprint);
    if (refreshed.changes > 0) return false;
    ctx
      .stmt(
        `UPDATE stacks SET drift_fingerprint = ?, drift_run_id = ?, drift_first_seen_at = ?,
           drift_last_seen_at = ?, drift_counts = ? WHERE name = ?`,
      )
      .run(drift.fingerprint, drift.runId, now, now, JSON.stringify(drift.counts), name);
    return true;
  });

  const closeDrift = ctx.db.transaction((name: string) => {
    const open = get(name)?.openDrift;
    if (open) ctx.stmt(`UPDATE stacks SET ${CLEAR_DRIFT} WHERE name = ?`).run(name);
    return open;
  });

  const upsert = ctx.db.transaction((name: string) => {
    ensureStack(ctx, name);
    return get(name)!;
  });

  /** Runs one UPDATE on a stack row, creating the row first. */
  const write = (sql: string, name: string, ...params: unknown[]) => {
    ctx.db
      .transaction(() => {
        ensureStack(ctx, name);
        ctx.stmt(sql).run(...params, name);
      })
      .immediate();
  };

  return {
    upsertStack: (name) => upsert.immediate(name),
    getStack: get,
    listStacks: () => ctx.stmt('SELECT * FROM stacks ORDER BY name').all().map(toStack),

    // Records the outcome of a check. A blocked stack stays blocked whatever the check reports: only
    // a person who has looked at its state may unblock it.
    setStackStatus(name, status, lastRunId) {
      write(
        `UPDATE stacks SET status = CASE WHEN blocked_reason IS NULL THEN ? ELSE 'blocked' END,
           last_check_at = ?, last_run_id = COALESCE(?, last_run_id) WHERE name = ?`,
        name,
        status,
        ctx.nowMs(),
        lastRunId ?? null,
      );
    },

    openDrift: (name, drift) => openDrift.immediate(name, drift),
    closeDrift: (name) => closeDrift.immediate(name),

    blockStack(name, reason) {
      write("UPDATE stacks SET status = 'blocked', blocked_reason = ? WHERE name = ?", name, reason);
    },
    unblockStack(name) {
      write("UPDATE stacks SET status = 'unknown', blocked_reason = NULL WHERE name = ?", name);
    },
    setLastAppliedCommit(name, sha) {
      write('UPDATE stacks SET last_applied_commit = ? WHERE name = ?', name, sha);
    },
    countSamePlan(name, fingerprint) {
      ensureStack(ctx, name);
      const row = ctx
        .stmt(
          `UPDATE stacks SET
             same_plan_checks = CASE WHEN ? IS NULL THEN 0
               WHEN same_plan_fingerprint = ? THEN same_plan_checks + 1 ELSE 1 END,
             same_plan_fingerprint = ?
           WHERE name = ? RETURNING same_plan_checks`,
        )
        .get(fingerprint ?? null, fingerprint ?? null, fingerprint ?? null, name) as { same_plan_checks: number };
      return row.same_plan_checks;
    },
  };
}
