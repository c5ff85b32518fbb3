import { PENDING_CHANGES_PER_STACK } from '../../../domain/change-events/intake.js';
import type { PendingChangeStore } from '../../../ports/store.js';
import { pendingChangeValues, toPendingChanges } from '../shared/pending-change-row.js';
import { advisoryLock, changes as changed, type PgContext, rows } from './postgres-context.js';

/** Matched change events waiting for their stack's next check, which reads them for its attribution. */
export function pendingChangeQueries(ctx: PgContext): PendingChangeStore {
  return {
    addPendingChanges: (stack, changes) =>
      ctx.transaction(async (tx) => {
        // Replicas add for one stack at once: each sees the other's rows, and a stack's rows commit in
        // `seq` order, so a check's mark never passes a row that is not yet visible.
        await advisoryLock(tx, `pending_changes:${stack}`);
        const nowMs = tx.nowMs();
        const values = changes.map((c) => pendingChangeValues(stack, c, nowMs));
        // Delivery is at least once (EventBridge retries, SQS redelivers): an event waits once per stack.
        const added = values.length
          ? await changed(
              tx,
              `INSERT INTO pending_changes (stack, event_id, at, received_at, change)
               SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::jsonb[])
               ON CONFLICT (stack, event_id) DO NOTHING`,
              [0, 1, 2, 3, 4].map((i) => values.map((v) => v[i])),
            )
          : 0;
        // The newest are kept: a stack whose checks keep failing (or one blocked) names who
        // changed it last, not who did first.
        await changed(
          tx,
          `DELETE FROM pending_changes WHERE stack = $1 AND seq NOT IN (
             SELECT seq FROM pending_changes WHERE stack = $1 ORDER BY at DESC, seq DESC LIMIT $2)`,
          [stack, PENDING_CHANGES_PER_STACK],
        );
        return added;
      }),
    async markPendingChanges(stack) {
      const [row] = (await rows(ctx, 'SELECT MAX(seq)::bigint AS mark FROM pending_changes WHERE stack = $1', [
        stack,
      ])) as { mark: number | null }[];
      return Number(row?.mark ?? 0);
    },
    async readPendingChanges(stack, upTo = Number.MAX_SAFE_INTEGER) {
      return toPendingChanges(
        await rows(ctx, 'SELECT change FROM pending_changes WHERE stack = $1 AND seq <= $2 ORDER BY at, event_id', [
          stack,
          upTo,
        ]),
      );
    },
    dropPendingChanges: (stack, upTo) =>
      ctx.transaction(async (tx) => {
        // Under the stack's lock, as an add's eviction is: two deletes of one stack's rows never deadlock.
        await advisoryLock(tx, `pending_changes:${stack}`);
        return changed(tx, 'DELETE FROM pending_changes WHERE stack = $1 AND seq <= $2', [stack, upTo]);
      }),
    prunePendingChanges: (before) =>
      changed(ctx, 'DELETE FROM pending_changes WHERE received_at < $1', [before.getTime()]),
    async listWaitingStacks(receivedBefore) {
      const found = (await rows(
        ctx,
        'SELECT DISTINCT stack FROM pending_changes WHERE received_at < $1 ORDER BY stack',
        [receivedBefore.getTime()],
      )) as { stack: string }[];
      return found.map((r) => r.stack);
    },
  };
}
