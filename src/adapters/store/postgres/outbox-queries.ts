import type { OutboxMethods } from '../shared/query-groups.js';
import type { SlackStore } from '../../../ports/slack-store.js';
import { toDeadOutboxItem, toOutboxItem } from '../shared/slack-rows.js';
import { changes, firstRow, type PgContext, rows } from './postgres-context.js';

/**
 * The outbox of outgoing Slack calls. Items of one key go out strictly in order: only the oldest open
 * item of a key is handed out, so a later item waits even while an earlier one waits for its retry.
 * A dead item no longer blocks its key: holding the rest back forever would silence every later update.
 * `due` claims nothing: two processes asking at once get the same items, so one process delivers.
 */
export function outboxQueries(ctx: PgContext): Pick<SlackStore, OutboxMethods> {
  return {
    async enqueue(item) {
      const row = await firstRow(
        ctx,
        `INSERT INTO outbox (key, method, payload, next_attempt_at, record_message_for) VALUES ($1, $2, $3, $4, $5)
         RETURNING *`,
        [item.key, item.method, JSON.stringify(item.payload), ctx.nowMs(), item.recordMessageFor ?? null],
      );
      return toOutboxItem(row);
    },

    async due(now, limit) {
      const found = await rows(
        ctx,
        `SELECT o.* FROM outbox o
         WHERE o.delivered_at IS NULL AND o.dead_at IS NULL
           AND o.id = (SELECT min(p.id) FROM outbox p WHERE p.key = o.key AND p.delivered_at IS NULL AND p.dead_at IS NULL)
           AND o.next_attempt_at <= $1
         ORDER BY o.next_attempt_at, o.id
         LIMIT $2`,
        [now.getTime(), Math.max(0, Math.floor(limit))],
      );
      return found.map(toOutboxItem);
    },

    async markDelivered(id) {
      await ctx.db.query(
        'UPDATE outbox SET delivered_at = $1, attempts = attempts + 1, last_error = NULL WHERE id = $2',
        [ctx.nowMs(), id],
      );
    },

    async markFailed(id, error, nextAttemptAt) {
      await ctx.db.query(
        'UPDATE outbox SET attempts = attempts + 1, last_error = $1, next_attempt_at = $2 WHERE id = $3',
        [error, nextAttemptAt.getTime(), id],
      );
    },

    async markDead(id, error) {
      await ctx.db.query('UPDATE outbox SET attempts = attempts + 1, last_error = $1, dead_at = $2 WHERE id = $3', [
        error,
        ctx.nowMs(),
        id,
      ]);
    },

    async pendingCount() {
      const row = (await firstRow(
        ctx,
        'SELECT count(*)::integer AS n FROM outbox WHERE delivered_at IS NULL AND dead_at IS NULL',
      )) as { n: number };
      return row.n;
    },

    pruneDelivered: (before) =>
      changes(ctx, 'DELETE FROM outbox WHERE delivered_at IS NOT NULL AND delivered_at < $1', [before.getTime()]),

    pruneDead: (before) =>
      changes(ctx, 'DELETE FROM outbox WHERE dead_at IS NOT NULL AND dead_at < $1', [before.getTime()]),

    async listDead(limit) {
      const row = (await firstRow(ctx, 'SELECT count(*)::integer AS n FROM outbox WHERE dead_at IS NOT NULL')) as {
        n: number;
      };
      const items = await rows(
        ctx,
        `SELECT id, key, method, attempts, last_error, dead_at FROM outbox WHERE dead_at IS NOT NULL
         ORDER BY dead_at DESC, id DESC LIMIT $1`,
        [Math.max(0, Math.floor(limit))],
      );
      return { total: row.n, items: items.map(toDeadOutboxItem) };
    },
  };
}
