import type { OutboxMethods } from '../shared/query-groups.js';
import type { SlackStore } from '../../../ports/slack-store.js';
import type { Synchronous } from './synchronous.js';
import type { StoreContext } from './sqlite-context.js';
import { toDeadOutboxItem, toOutboxItem } from '../shared/slack-rows.js';

/**
 * The outbox of outgoing Slack calls. Items of one key go out strictly in order: only the oldest open
 * item of a key is ever handed out, so a later item waits even while an earlier one waits for its retry.
 * A dead item no longer blocks its key: it will never be delivered, and holding the rest back forever
 * would silence every later update of that run.
 */
export function outboxQueries(ctx: StoreContext): Pick<Synchronous<SlackStore>, OutboxMethods> {
  return {
    enqueue(item) {
      const row = ctx
        .stmt(
          `INSERT INTO outbox (key, method, payload, next_attempt_at, record_message_for) VALUES (?, ?, ?, ?, ?)
           RETURNING *`,
        )
        .get(item.key, item.method, JSON.stringify(item.payload), ctx.nowMs(), item.recordMessageFor ?? null);
      return toOutboxItem(row);
    },

    due(now, limit) {
      return ctx
        .stmt(
          `SELECT o.* FROM outbox o
           WHERE o.delivered_at IS NULL AND o.dead_at IS NULL
             AND o.id = (SELECT MIN(p.id) FROM outbox p WHERE p.key = o.key AND p.delivered_at IS NULL AND p.dead_at IS NULL)
             AND o.next_attempt_at <= ?
           ORDER BY o.next_attempt_at, o.id
           LIMIT ?`,
        )
        .all(now.getTime(), Math.max(0, Math.floor(limit)))
        .map(toOutboxItem);
    },

    markDelivered(id) {
      ctx
        .stmt('UPDATE outbox SET delivered_at = ?, attempts = attempts + 1, last_error = NULL WHERE id = ?')
        .run(ctx.nowMs(), id);
    },

    markFailed(id, error, nextAttemptAt) {
      ctx
        .stmt('UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ? WHERE id = ?')
        .run(error, nextAttemptAt.getTime(), id);
    },

    markDead(id, error) {
      ctx
        .stmt('UPDATE outbox SET attempts = attempts + 1, last_error = ?, dead_at = ? WHERE id = ?')
        .run(error, ctx.nowMs(), id);
    },

    pendingCount() {
      return ctx
        .stmt('SELECT COUNT(*) FROM outbox WHERE delivered_at IS NULL AND dead_at IS NULL')
        .pluck()
        .get() as number;
    },

    pruneDelivered(before) {
      return ctx.stmt('DELETE FROM outbox WHERE delivered_at IS NOT NULL AND delivered_at < ?').run(before.getTime())
        .changes;
    },

    pruneDead(before) {
      return ctx.stmt('DELETE FROM outbox WHERE dead_at IS NOT NULL AND dead_at < ?').run(before.getTime()).changes;
    },

    listDead(limit) {
      const total = ctx.stmt('SELECT COUNT(*) FROM outbox WHERE dead_at IS NOT NULL').pluck().get() as number;
      const items = ctx
        .stmt(
          'SELECT id, key, method, attempts, last_error, dead_at FROM outbox WHERE dead_at IS NOT NULL ORDER BY dead_at DESC, id DESC LIMIT ?',
        )
        .all(Math.max(0, Math.floor(limit)))
        .map(toDeadOutboxItem);
      return { total, items };
    },
  };
}
