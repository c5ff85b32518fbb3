import type { SlackMethods } from '../shared/query-groups.js';
import type { SlackStore } from '../../../ports/slack-store.js';
import { toApproval, toMessageRef, toSilence } from '../shared/slack-rows.js';
import { changes, firstRow, type PgContext, rows } from './postgres-context.js';

type SlackQueries = Pick<SlackStore, SlackMethods>;

/** Approvals, where each run's message lives, and the silences and snoozes that hold alerts back. */
export function slackQueries(ctx: PgContext): SlackQueries {
  return {
    async addApproval(approval) {
      // The unique (run_id, user_id) pair makes "a user counts once" hold even for two clicks at once.
      const added = await changes(
        ctx,
        'INSERT INTO approvals (run_id, user_id, at, groups) VALUES ($1, $2, $3, $4) ON CONFLICT (run_id, user_id) DO NOTHING',
        [
          approval.runId,
          approval.userId,
          approval.at.getTime(),
          approval.groups ? JSON.stringify(approval.groups) : null,
        ],
      );
      return added > 0;
    },

    async listApprovals(runId) {
      return (await rows(ctx, 'SELECT * FROM approvals WHERE run_id = $1 ORDER BY at, seq', [runId])).map(toApproval);
    },

    async setMessage(ref) {
      await ctx.db.query(
        `INSERT INTO slack_messages (run_id, channel, ts) VALUES ($1, $2, $3)
         ON CONFLICT (run_id) DO UPDATE SET channel = excluded.channel, ts = excluded.ts`,
        [ref.runId, ref.channel, ref.ts],
      );
    },

    async getMessage(runId) {
      const row = await firstRow(ctx, 'SELECT * FROM slack_messages WHERE run_id = $1', [runId]);
      return row === undefined ? undefined : toMessageRef(row);
    },

    async hasMessage(runId) {
      const row = await firstRow(
        ctx,
        `SELECT 1 FROM slack_messages WHERE run_id = $1
         UNION ALL SELECT 1 FROM outbox WHERE record_message_for = $1 AND delivered_at IS NULL AND dead_at IS NULL
         LIMIT 1`,
        [runId],
      );
      return row !== undefined;
    },

    async silence(silence) {
      await ctx.db.query(
        `INSERT INTO silences (stack, until, reason, by) VALUES ($1, $2, $3, $4)
         ON CONFLICT (stack) DO UPDATE SET until = excluded.until, reason = excluded.reason, by = excluded.by`,
        [silence.stack, silence.until.getTime(), silence.reason ?? null, silence.by],
      );
    },

    async unsilence(stack) {
      const row = await firstRow(ctx, 'DELETE FROM silences WHERE stack = $1 RETURNING *', [stack]);
      return row === undefined ? undefined : toSilence(row);
    },

    /** The silence in force at `now`; an expired one is as good as none. */
    async getSilence(stack, now) {
      const row = await firstRow(ctx, 'SELECT * FROM silences WHERE stack = $1 AND until > $2', [stack, now.getTime()]);
      return row === undefined ? undefined : toSilence(row);
    },

    async snooze(stack, fingerprint, until) {
      await ctx.db.query(
        `INSERT INTO snoozes (stack, fingerprint, until) VALUES ($1, $2, $3)
         ON CONFLICT (stack, fingerprint) DO UPDATE SET until = excluded.until`,
        [stack, fingerprint, until.getTime()],
      );
    },

    async isSnoozed(stack, fingerprint, now) {
      const row = await firstRow(ctx, 'SELECT 1 FROM snoozes WHERE stack = $1 AND fingerprint = $2 AND until > $3', [
        stack,
        fingerprint,
        now.getTime(),
      ]);
      return row !== undefined;
    },
  };
}
