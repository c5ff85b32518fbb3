import { z } from 'zod';
import type { Announcement } from '../../domain/events.js';
import type { RunStore } from '../../ports/store.js';
import type { Synchronous } from './synchronous.js';
import type { StoreContext } from './context.js';
import { OwnerColumns, parseRow, toOwner, toRun } from './rows.js';

/** What a run carries beside its state: the announcement its outcome still owes, its plan's signature. */
type RunNoteQueries = Pick<
  Synchronous<RunStore>,
  'announce' | 'announced' | 'listUnannounced' | 'setPlanSignature' | 'lastRunWithPlanSignature'
>;

const StoredAnnouncement = z.discriminatedUnion('type', [
  z.object({ type: z.enum(['drift_detected', 'plan_pending_approval', 'no_changes']) }),
  z.object({
    type: z.literal('plan_refreshed'),
    previousRunId: z.string().optional(),
    notConverging: z.number().int().optional(),
  }),
  z.object({ type: z.literal('drift_resolved'), previousFingerprint: z.string(), previousRunId: z.string() }),
]);

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
        .map((row) => {
          const { announcement } = parseRow(z.object({ announcement: z.string() }), 'runs', row);
          const parsed = StoredAnnouncement.safeParse(JSON.parse(announcement));
          if (!parsed.success) {
            const id = (row as { id?: unknown }).id;
            throw new Error(`run store: unreadable announcement of run ${String(id)}: ${parsed.error.message}`);
          }
          return { run: toRun(row), announcement: parsed.data as Announcement };
        });
    },
  };
}
