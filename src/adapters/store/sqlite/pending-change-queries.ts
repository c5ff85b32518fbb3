import { PENDING_CHANGES_PER_STACK } from '../../../domain/change-events/intake.js';
import type { PendingChangeStore } from '../../../ports/store.js';
import type { StoreContext } from './sqlite-context.js';
import { pendingChangeValues, toPendingChanges } from '../shared/pending-change-row.js';
import type { Synchronous } from './synchronous.js';

type PendingChangeQueries = Synchronous<PendingChangeStore>;

/** Matched change events waiting for their stack's next check, which reads them for its attribution. */
export function pendingChangeQueries(ctx: StoreContext): PendingChangeQueries {
  const add = ctx.db.transaction((stack: string, changes: Parameters<PendingChangeQueries['addPendingChanges']>[1]) => {
    const nowMs = ctx.nowMs();
    let added = 0;
    for (const change of changes) {
      // Delivery is at least once (EventBridge retries, SQS redelivers): an event waits once per stack.
      added += ctx
        .stmt(
          `INSERT INTO pending_changes (stack, event_id, at, received_at, change) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (stack, event_id) DO NOTHING`,
        )
        .run(...pendingChangeValues(stack, change, nowMs)).changes;
    }
    // The newest are kept: a stack whose checks keep failing (or one blocked) names who
    // changed it last, not who did first.
    ctx
      .stmt(
        `DELETE FROM pending_changes WHERE stack = ? AND seq NOT IN (
           SELECT seq FROM pending_changes WHERE stack = ? ORDER BY at DESC, seq DESC LIMIT ?)`,
      )
      .run(stack, stack, PENDING_CHANGES_PER_STACK);
    return added;
  });
  return {
    addPendingChanges: (stack, changes) => add.immediate(stack, changes),
    markPendingChanges: (stack) =>
      (ctx.stmt('SELECT MAX(seq) AS mark FROM pending_changes WHERE stack = ?').get(stack) as { mark: number | null })
        .mark ?? 0,
    readPendingChanges: (stack, upTo = Number.MAX_SAFE_INTEGER) =>
      toPendingChanges(
        ctx
          .stmt('SELECT change FROM pending_changes WHERE stack = ? AND seq <= ? ORDER BY at, event_id')
          .all(stack, upTo),
      ),
    dropPendingChanges: (stack, upTo) =>
      ctx.stmt('DELETE FROM pending_changes WHERE stack = ? AND seq <= ?').run(stack, upTo).changes,
    prunePendingChanges: (before) =>
      ctx.stmt('DELETE FROM pending_changes WHERE received_at < ?').run(before.getTime()).changes,
    listWaitingStacks: (receivedBefore) =>
      ctx
        .stmt('SELECT DISTINCT stack FROM pending_changes WHERE received_at < ? ORDER BY stack')
        .pluck()
        .all(receivedBefore.getTime()) as string[],
  };
}
