import type { RunStore } from '../../../ports/store.js';
import { hourOf, toUnmatchedChange, unmatchedChangeValues } from '../shared/unmatched-change-row.js';
import { changes as changed, firstRow, type PgContext, rows } from './postgres-context.js';

/** Change events no stack's resources matched: the newest kept for `/drift events`, all counted per hour. */
export function unmatchedChangeQueries(
  ctx: PgContext,
): Pick<RunStore, 'recordUnmatchedChanges' | 'listUnmatchedChanges' | 'pruneUnmatchedChanges'> {
  return {
    recordUnmatchedChanges: (batch) =>
      ctx.transaction(async (tx) => {
        const nowMs = tx.nowMs();
        const values = batch.changes.map((c) => unmatchedChangeValues(c, nowMs));
        // Delivery is at least once (EventBridge retries, SQS redelivers): an event is kept and counted once.
        const inserted = values.length
          ? await changed(
              tx,
              `INSERT INTO unmatched_changes (event_id, at, received_at, change)
               SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::jsonb[])
               ON CONFLICT (event_id) DO NOTHING`,
              [0, 1, 2, 3].map((i) => values.map((v) => v[i])),
            )
          : 0;
        const added = inserted + batch.dropped;
        if (added > 0)
          await tx.db.query(
            `INSERT INTO unmatched_change_counts (hour, count) VALUES ($1, $2)
             ON CONFLICT (hour) DO UPDATE SET count = unmatched_change_counts.count + excluded.count`,
            [hourOf(nowMs), added],
          );
      }),
    async listUnmatchedChanges({ since, limit }) {
      const kept = await rows(
        ctx,
        'SELECT * FROM unmatched_changes WHERE received_at >= $1 ORDER BY at DESC, event_id DESC LIMIT $2',
        [since.getTime(), limit],
      );
      const total = (await firstRow(
        ctx,
        'SELECT COALESCE(SUM(count), 0)::bigint AS counted FROM unmatched_change_counts WHERE hour >= $1',
        [hourOf(since.getTime())],
      )) as { counted: number };
      return { changes: kept.map(toUnmatchedChange), counted: total.counted };
    },
    pruneUnmatchedChanges: (options) =>
      ctx.transaction(async (tx) => {
        const before = options.before.getTime();
        const removed = await changed(
          tx,
          `DELETE FROM unmatched_changes WHERE received_at < $1 OR event_id NOT IN
             (SELECT event_id FROM unmatched_changes ORDER BY at DESC, event_id DESC LIMIT $2)`,
          [before, options.keep],
        );
        await tx.db.query('DELETE FROM unmatched_change_counts WHERE hour < $1', [hourOf(before)]);
        return removed;
      }),
  };
}
