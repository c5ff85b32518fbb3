import { PENDING_CHANGES_PER_STACK } from '../../domain/change-events/intake.js';
import type { RunStore } from '../../ports/store.js';
import type { StoreContext } from './context.js';
import { pendingChangeValues, toPendingChange } from './pending-change-row.js';
import type { Synchronous } from './synchronous.js';

type PendingChangeQueries = Pick<
  Synchronous<RunStore>,
  'addPendingChanges' | 'takePendingChanges' | 'prunePendingChanges'
>;

/** Matched change events waiting for their stack's next check, which takes them for its attribution. */
export function pendingChangeQueries(ctx: StoreContext): PendingChangeQueries {
  const add = ctx.db.transaction((stack: string, changes: Parameters<PendingChangeQueries['addPendingChanges']>[1]) => {
    const nowMs = ctx.nowMs();
    const { kept } = ctx.stmt('SELECT COUNT(*) AS kept FROM pending_changes WHERE stack = ?').get(stack) as {
      kept: number;
    };
    let added = 0;
    for (const change of changes.slice(0, Math.max(0, PENDING_CHANGES_PER_STACK - kept))) {
      // Delivery is at least once (EventBridge retries, SQS redelivers): an event waits once per stack.
      added += ctx
        .stmt(
          `INSERT INTO pending_changes (stack, event_id, at, received_at, change) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (stack, event_id) DO NOTHING`,
        )
        .run(...pendingChangeValues(stack, change, nowMs)).changes;
    }
    return added;
  });
  const take = ctx.db.transaction((stack: string) => {
    const taken = ctx
      .stmt('SELECT change FROM pending_changes WHERE stack = ? ORDER BY at, event_id')
      .all(stack)
      .map(toPendingChange);
    ctx.stmt('DELETE FROM pending_changes WHERE stack = ?').run(stack);
    return taken;
  });
  return {
    addPendingChanges: (stack, changes) => add.immediate(stack, changes),
    takePendingChanges: (stack) => take.immediate(stack),
    prunePendingChanges: (before) =>
      ctx.stmt('DELETE FROM pending_changes WHERE received_at < ?').run(before.getTime()).changes,
  };
}
