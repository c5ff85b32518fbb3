import type { RunStore } from '../../../ports/store.js';
import { OwnerColumns, parseRow, toOwner, toRun } from '../shared/rows.js';
import { toAnnouncement } from '../shared/stored-announcement.js';
import { firstRow, type PgContext, rows } from './postgres-context.js';

/** What a run carries beside its state: the announcement its outcome still owes, its plan's signature. */
type RunNoteQueries = Pick<
  RunStore,
  'announce' | 'announced' | 'listUnannounced' | 'setPlanSignature' | 'lastRunWithPlanSignature'
>;

export function runNoteQueries(ctx: PgContext): RunNoteQueries {
  return {
    async setPlanSignature(runId, signature) {
      await ctx.db.query('UPDATE runs SET plan_signature = $1 WHERE id = $2', [signature, runId]);
    },
    async lastRunWithPlanSignature(stack, signature, exceptRunId) {
      const row = await firstRow(
        ctx,
        `SELECT * FROM runs WHERE stack = $1 AND plan_signature = $2 AND id <> $3
         ORDER BY created_at DESC, seq DESC LIMIT 1`,
        [stack, signature, exceptRunId],
      );
      return row === undefined ? undefined : toRun(row);
    },
    async announce(runId, announcement) {
      await ctx.db.query('UPDATE runs SET announcement = $1 WHERE id = $2', [JSON.stringify(announcement), runId]);
    },
    async announced(runId) {
      await ctx.db.query('UPDATE runs SET announcement = NULL WHERE id = $1', [runId]);
    },
    async listUnannounced() {
      // `held`: the run still holds an unexpired stack lock, i.e. its process still sends heartbeats.
      const found = await rows(
        ctx,
        `SELECT r.*, EXISTS (SELECT 1 FROM locks l WHERE l.run_id = r.id AND l.expires_at > $1) AS held
         FROM runs r WHERE r.announcement IS NOT NULL ORDER BY r.created_at, r.seq`,
        [ctx.nowMs()],
      );
      return found
        .filter((row) => {
          // The process that recorded it may still be publishing: only a gone owner's outcomes are left over.
          // A process on another host cannot be asked: there its lock's heartbeat speaks for it.
          const owner = toOwner(parseRow(OwnerColumns, 'runs', row));
          const state = owner ? ctx.ownerState(owner) : 'gone';
          return state === 'unknown' ? !(row as { held: boolean }).held : state === 'gone';
        })
        .map((row) => ({
          run: toRun(row),
          announcement: toAnnouncement(row),
        }));
    },
  };
}
