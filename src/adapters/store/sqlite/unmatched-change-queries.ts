import type { RunStore } from '../../../ports/store.js';
import type { StoreContext } from './sqlite-context.js';
import type { Synchronous } from './synchronous.js';
import { hourOf, toUnmatchedChange, unmatchedChangeValues } from '../shared/unmatched-change-row.js';

type UnmatchedChangeQueries = Pick<
  Synchronous<RunStore>,
  'recordUnmatchedChanges' | 'listUnmatchedChanges' | 'pruneUnmatchedChanges'
>;

/** Change events no stack's resources matched: the newest kept for `/drift events`, all counted per hour. */
export function unmatchedChangeQueries(ctx: StoreContext): UnmatchedChangeQueries {
  const record = ctx.db.transaction((batch: Parameters<UnmatchedChangeQueries['recordUnmatchedChanges']>[0]) => {
    const nowMs = ctx.nowMs();
    let added = batch.dropped;
    for (const change of batch.changes) {
      // Delivery is at least once (EventBridge retries, SQS redelivers): an event is kept and counted once.
      added += ctx
        .stmt(
          `INSERT INTO unmatched_changes (event_id, at, received_at, change) VALUES (?, ?, ?, ?)
           ON CONFLICT (event_id) DO NOTHING`,
        )
        .run(...unmatchedChangeValues(change, nowMs)).changes;
    }
    if (added > 0)
      ctx
        .stmt(
          `INSERT INTO unmatched_change_counts (hour, count) VALUES (?, ?)
           ON CONFLICT (hour) DO UPDATE SET count = unmatched_change_counts.count + excluded.count`,
        )
        .run(hourOf(nowMs), added);
  });
  const prune = ctx.db.transaction((options: { before: Date; keep: number }) => {
    const before = options.before.getTime();
    const removed = ctx
      .stmt(
        `DELETE FROM unmatched_changes WHERE received_at < ? OR event_id NOT IN
           (SELECT event_id FROM unmatched_changes ORDER BY at DESC, event_id DESC LIMIT ?)`,
      )
      .run(before, options.keep).changes;
    ctx.stmt('DELETE FROM unmatched_change_counts WHERE hour < ?').run(hourOf(before));
    return removed;
  });
  return {
    recordUnmatchedChanges: (batch) => record.immediate(batch),
    listUnmatchedChanges({ since, limit }) {
      const changes = ctx
        .stmt('SELECT * FROM unmatched_changes WHERE received_at >= ? ORDER BY at DESC, event_id DESC LIMIT ?')
        .all(since.getTime(), limit)
        .map(toUnmatchedChange);
      const row = ctx
        .stmt('SELECT COALESCE(SUM(count), 0) AS counted FROM unmatched_change_counts WHERE hour >= ?')
        .get(hourOf(since.getTime())) as { counted: number };
      return { changes, counted: row.counted };
    },
    pruneUnmatchedChanges: (options) => prune.immediate(options),
  };
}
