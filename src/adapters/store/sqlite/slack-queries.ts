import type { SlackMethods } from '../shared/query-groups.js';
import type { SlackStore } from '../../../ports/slack-store.js';
import type { Synchronous } from './synchronous.js';
import type { StoreContext } from './sqlite-context.js';
import { toApproval, toMessageRef, toSilence } from '../shared/slack-rows.js';

type SlackQueries = Pick<Synchronous<SlackStore>, SlackMethods>;

/** Approvals, where each run's message lives, and the silences and snoozes that hold alerts back. */
export function slackQueries(ctx: StoreContext): SlackQueries {
  return {
    addApproval(approval) {
      // The unique (run_id, user_id) pair makes "a user counts once" hold even for two clicks at once.
      const result = ctx
        .stmt(
          'INSERT INTO approvals (run_id, user_id, at, groups) VALUES (?, ?, ?, ?) ON CONFLICT (run_id, user_id) DO NOTHING',
        )
        .run(
          approval.runId,
          approval.userId,
          approval.at.getTime(),
          approval.groups ? JSON.stringify(approval.groups) : null,
        );
      return result.changes > 0;
    },

    listApprovals(runId) {
      return ctx.stmt('SELECT * FROM approvals WHERE run_id = ? ORDER BY at, rowid').all(runId).map(toApproval);
    },

    setMessage(ref) {
      ctx
        .stmt(
          'INSERT INTO slack_messages (run_id, channel, ts) VALUES (?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET channel = excluded.channel, ts = excluded.ts',
        )
        .run(ref.runId, ref.channel, ref.ts);
    },

    getMessage(runId) {
      const row = ctx.stmt('SELECT * FROM slack_messages WHERE run_id = ?').get(runId);
      return row === undefined ? undefined : toMessageRef(row);
    },

    hasMessage(runId) {
      const row = ctx
        .stmt(
          `SELECT 1 FROM slack_messages WHERE run_id = ?
           UNION ALL SELECT 1 FROM outbox WHERE record_message_for = ? AND delivered_at IS NULL AND dead_at IS NULL
           LIMIT 1`,
        )
        .get(runId, runId);
      return row !== undefined;
    },

    silence(silence) {
      ctx
        .stmt(
          `INSERT INTO silences (stack, until, reason, by) VALUES (?, ?, ?, ?)
           ON CONFLICT (stack) DO UPDATE SET until = excluded.until, reason = excluded.reason, by = excluded.by`,
        )
        .run(silence.stack, silence.until.getTime(), silence.reason ?? null, silence.by);
    },

    unsilence(stack) {
      const row = ctx.stmt('DELETE FROM silences WHERE stack = ? RETURNING *').get(stack);
      return row === undefined ? undefined : toSilence(row);
    },

    /** The silence in force at `now`; an expired one is as good as none. */
    getSilence(stack, now) {
      const row = ctx.stmt('SELECT * FROM silences WHERE stack = ? AND until > ?').get(stack, now.getTime());
      return row === undefined ? undefined : toSilence(row);
    },

    snooze(stack, fingerprint, until) {
      ctx
        .stmt(
          `INSERT INTO snoozes (stack, fingerprint, until) VALUES (?, ?, ?)
           ON CONFLICT (stack, fingerprint) DO UPDATE SET until = excluded.until`,
        )
        .run(stack, fingerprint, until.getTime());
    },

    isSnoozed(stack, fingerprint, now) {
      return (
        ctx
          .stmt('SELECT 1 FROM snoozes WHERE stack = ? AND fingerprint = ? AND until > ?')
          .get(stack, fingerprint, now.getTime()) !== undefined
      );
    },
  };
}
