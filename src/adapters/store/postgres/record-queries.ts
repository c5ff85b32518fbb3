import { auditValues } from '../shared/write-values.js';
import type { RunStore } from '../../../ports/store.js';
import { toArtifact, toAudit } from '../shared/rows.js';
import { firstRow, type PgContext, rows } from './postgres-context.js';

type RecordQueries = Pick<
  RunStore,
  'addArtifact' | 'listArtifacts' | 'listArtifactsBefore' | 'removeArtifact' | 'appendAudit' | 'listAudit'
>;

/** Artifact references and the audit trail: rows that record what happened, keyed by run. */
export function recordQueries(ctx: PgContext): RecordQueries {
  return {
    async addArtifact(ref) {
      // A re-plan within one run replaces its artifact of the same kind.
      const row = await firstRow(
        ctx,
        `INSERT INTO artifacts (run_id, kind, key, sha256, size, created_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (run_id, kind) DO UPDATE SET
           key = excluded.key, sha256 = excluded.sha256, size = excluded.size, created_at = excluded.created_at
         RETURNING *`,
        [ref.runId, ref.kind, ref.key, ref.sha256, ref.size, ctx.nowMs()],
      );
      return toArtifact(row);
    },

    async listArtifacts(runId) {
      return (await rows(ctx, 'SELECT * FROM artifacts WHERE run_id = $1 ORDER BY created_at, kind', [runId])).map(
        toArtifact,
      );
    },

    async listArtifactsBefore(before) {
      const found = await rows(
        ctx,
        `SELECT a.* FROM artifacts a JOIN runs r ON r.id = a.run_id
         WHERE r.finished_at IS NOT NULL AND a.created_at < $1 ORDER BY a.created_at, a.run_id, a.kind`,
        [before.getTime()],
      );
      return found.map(toArtifact);
    },

    async removeArtifact(runId, kind) {
      await ctx.db.query('DELETE FROM artifacts WHERE run_id = $1 AND kind = $2', [runId, kind]);
    },

    async appendAudit(entry) {
      const row = await firstRow(
        ctx,
        `INSERT INTO audit (at, actor, action, run_id, stack, plan_sha256, detail) VALUES ($1, $2, $3, $4, $5, $6, $7)
         RETURNING *`,
        [...auditValues(entry)],
      );
      return toAudit(row);
    },

    /** Oldest first; with `limit`, the latest `limit` entries, still oldest first. */
    async listAudit(query = {}) {
      const where: string[] = [];
      const values: unknown[] = [];
      if (query.runId !== undefined) where.push(`run_id = $${values.push(query.runId)}`);
      if (query.stack !== undefined) where.push(`stack = $${values.push(query.stack)}`);
      const limit = query.limit !== undefined ? `LIMIT $${values.push(query.limit)}` : '';
      const sql = `SELECT * FROM audit ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC ${limit}`;
      return (await rows(ctx, sql, values)).map(toAudit).reverse();
    },
  };
}
