import { PENDING_CHANGES_PER_STACK } from '../../../domain/change-events/intake.js';
import type { RunStore } from '../../../ports/store.js';
import { pendingChangeValues, toPendingChange } from '../pending-change-row.js';
import { advisoryLock, changes as changed, type PgContext, rows } from './context.js';

/** Matched change events waiting for their stack's next check, which takes them for its attribution. */
export function pendingChangeQueries(
  ctx: PgContext,
): Pick<RunStore, 'addPendingChanges' | 'takePendingChanges' | 'prunePendingChanges'> {
  return {
    addPendingChanges: (stack, changes) =>
      ctx.transaction(async (tx) => {
        // Replicas add for one stack at once: the count and the insert must see each other's rows.
        await advisoryLock(tx, `pending_changes:${stack}`);
        const [row] = (await rows(tx, 'SELECT COUNT(*)::bigint AS kept FROM pending_changes WHERE stack = $1', [
          stack,
        ])) as { kept: number }[];
        const room = Math.max(0, PENDING_CHANGES_PER_STACK - (row?.kept ?? 0));
        const nowMs = tx.nowMs();
        const values = changes.slice(0, room).map((c) => pendingChangeValues(stack, c, nowMs));
        if (values.length === 0) return 0;
        // Delivery is at least once (EventBridge retries, SQS redelivers): an event waits once per stack.
        return changed(
          tx,
          `INSERT INTO pending_changes (stack, event_id, at, received_at, change)
           SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::jsonb[])
           ON CONFLICT (stack, event_id) DO NOTHING`,
          [0, 1, 2, 3, 4].map((i) => values.map((v) => v[i])),
        );
      }),
    async takePendingChanges(stack) {
      // One statement: two checks of a stack racing each get a change at most once.
      const taken = await rows(ctx, 'DELETE FROM pending_changes WHERE stack = $1 RETURNING at, event_id, change', [
        stack,
      ]);
      const sorted = (taken as { at: number; event_id: string }[]).sort(
        (a, b) => a.at - b.at || a.event_id.localeCompare(b.event_id),
      );
      return sorted.map(toPendingChange);
    },
    prunePendingChanges: (before) =>
      changed(ctx, 'DELETE FROM pending_changes WHERE received_at < $1', [before.getTime()]),
  };
}
