import type { RunStore } from '../../../ports/store.js';
import type { Synchronous } from './synchronous.js';
import type { StoreContext } from './sqlite-context.js';
import { OwnerColumns, parseRow, toOwner, toRun } from '../shared/rows.js';
import { toAnnouncement } from '../shared/stored-announcement.js';

/** What a run carries beside its state: the announcement its outcome still owes, its plan's signature. */
type RunNoteQueries = Pick<
  Synchronous<RunStore>,
  'announce' | 'announced' | 'listUnannounced' | 'setPlanSignature' | 'lastRunWithPlanSignature'
>;

export function runNoteQueries(ctx: StoreContext): RunNoteQueries {
  return {
    setPlanSignature(runId, signature) {
      ctx.stmt('UPDATE runs SET plan_signature = ? WHERE id = ?').run(signature, runId);
    },
    lastRunWithPlanSignature(stack, signature, exceptRunId) {
      const row = ctx
        .stmt(
          `SELECT * FROM runs WHERE stack = ? AND plan_signature = ? AND id != ?
           ORDER BY created_at DESC, rowid DESC LIMIT 1`,
        )
        .get(stack, signature, exceptRunId);
      return row === undefined ? undefined : toRun(row);
    },
    announce(runId, announcement) {
      ctx.stmt('UPDATE runs SET announcement = ? WHERE id = ?').run(JSON.stringify(announcement), runId);
    },
    announced(runId) {
      ctx.stmt('UPDATE runs SET announcement = NULL WHERE id = ?').run(runId);
    },
    listUnannounced() {
      return ctx
        .stmt('SELECT * FROM runs WHERE announcement IS NOT NULL ORDER BY created_at')
        .all()
        .filter((row) => {
          // The process that recorded it may still be publishing: only a gone owner's outcomes are left over.
          const owner = toOwner(parseRow(OwnerColumns, 'runs', row));
          return !owner || ctx.ownerState(owner) !== 'alive';
        })
        .map((row) => ({ run: toRun(row), announcement: toAnnouncement(row) }));
    },
  };
}
