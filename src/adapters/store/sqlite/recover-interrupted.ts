import type { Run } from '../../../domain/run/model.js';
import { IN_FLIGHT } from '../../../domain/run/state.js';
import { ensureStack, type StoreContext } from './sqlite-context.js';
import type { RecoverOptions } from '../../../ports/store.js';
import { leftOver } from '../shared/process-owner.js';
import { OwnerColumns, parseRow, toOwner, toRun } from '../shared/rows.js';

const STEP: Record<string, string> = { planning: 'plan', applying: 'apply' };

/**
 * Run once at startup, before any new work. A run in flight is interrupted only when the process working
 * on it is gone (a `driftgate check` running beside a restarting `serve` keeps its run); a run of another
 * host, whose process cannot be asked, counts as gone once its lock has run out (no more heartbeats).
 * An interrupted plan is harmless; an interrupted apply may have changed part of the infrastructure, so
 * its stack is blocked until a person has looked.
 */
export function recoverInterrupted(ctx: StoreContext, options: RecoverOptions = {}): Run[] {
  const recover = ctx.db.transaction((): Run[] => {
    const now = ctx.nowMs();
    const stranded = ctx
      .stmt(`SELECT * FROM runs WHERE state IN (${IN_FLIGHT.map(() => '?').join(', ')}) ORDER BY created_at`)
      .all(...IN_FLIGHT)
      .filter((row) => ownerGone(ctx, row, now, options))
      .map(toRun);
    const changed: Run[] = [];
    for (const run of stranded) {
      const step = STEP[run.state] ?? run.state;
      const error = `driftgate stopped during the ${step} step (state ${run.state}); the run did not finish`;
      const row = ctx
        .stmt(
          `UPDATE runs SET state = 'interrupted', error = ?, updated_at = ?, finished_at = ?
           WHERE id = ? AND state = ? RETURNING *`,
        )
        .get(error, now, now, run.id, run.state);
      if (row === undefined) continue;
      changed.push(toRun(row));
      ctx.stmt('DELETE FROM locks WHERE run_id = ?').run(run.id);
      if (run.state === 'applying') {
        ensureStack(ctx, run.stack);
        ctx
          .stmt("UPDATE stacks SET status = 'blocked', blocked_reason = ?, last_run_id = ? WHERE name = ?")
          .run(
            `apply of run ${run.id} was interrupted: the real infrastructure may be half applied; check its state before unblocking`,
            run.id,
            run.stack,
          );
      }
    }
    return changed;
  });
  return recover.immediate();
}

function ownerGone(ctx: StoreContext, row: unknown, now: number, options: RecoverOptions): boolean {
  const held = () =>
    ctx.stmt('SELECT 1 FROM locks WHERE run_id = ? AND expires_at > ?').get((row as { id: string }).id, now) !==
    undefined;
  const age = now - (row as { created_at: number }).created_at;
  return leftOver(toOwner(parseRow(OwnerColumns, 'runs', row)), held, ctx, options, age);
}
