import type { Run } from '../../../domain/run/model.js';
import { IN_FLIGHT } from '../../../domain/run/state.js';
import type { RecoverOptions } from '../../../ports/store.js';
import { leftOver } from '../shared/process-owner.js';
import { OwnerColumns, parseRow, toOwner, toRun } from '../shared/rows.js';
import { ensureStack, firstRow, type PgContext, rows } from './postgres-context.js';

const STEP: Record<string, string> = { planning: 'plan', applying: 'apply' };

/**
 * Run at startup, before any new work. A run in flight is interrupted only when the process working on it
 * is gone; a run of another host, whose process cannot be asked, counts as gone once its lock has run out
 * (no more heartbeats). An interrupted apply may have changed part of the infrastructure, so its stack is
 * blocked until a person has looked. Each run moves by compare-and-set: two replicas starting together
 * interrupt it once.
 */
export function recoverInterrupted(ctx: PgContext, options: RecoverOptions = {}): Promise<Run[]> {
  return ctx.transaction(async (tx) => {
    const now = tx.nowMs();
    const inFlight = await rows(
      tx,
      `SELECT r.*, EXISTS (SELECT 1 FROM locks l WHERE l.run_id = r.id AND l.expires_at > $2) AS held
       FROM runs r WHERE r.state = ANY($1::text[]) ORDER BY r.created_at, r.seq`,
      [IN_FLIGHT, now],
    );
    const changed: Run[] = [];
    for (const run of inFlight.filter((row) => ownerGone(tx, row, now, options)).map(toRun)) {
      const step = STEP[run.state] ?? run.state;
      const error = `driftgate stopped during the ${step} step (state ${run.state}); the run did not finish`;
      const row = await firstRow(
        tx,
        `UPDATE runs SET state = 'interrupted', error = $1, updated_at = $2, finished_at = $2
         WHERE id = $3 AND state = $4 RETURNING *`,
        [error, now, run.id, run.state],
      );
      if (row === undefined) continue;
      changed.push(toRun(row));
      await tx.db.query('DELETE FROM locks WHERE run_id = $1', [run.id]);
      if (run.state === 'applying') {
        await ensureStack(tx, run.stack);
        await tx.db.query(
          "UPDATE stacks SET status = 'blocked', blocked_reason = $1, last_run_id = $2 WHERE name = $3",
          [
            `apply of run ${run.id} was interrupted: the real infrastructure may be half applied; check its state before unblocking`,
            run.id,
            run.stack,
          ],
        );
      }
    }
    return changed;
  });
}

function ownerGone(ctx: PgContext, row: unknown, now: number, options: RecoverOptions): boolean {
  const { held, created_at } = row as { held: boolean; created_at: number | string };
  const age = now - Number(created_at);
  return leftOver(toOwner(parseRow(OwnerColumns, 'runs', row)), () => held, ctx, options, age);
}
