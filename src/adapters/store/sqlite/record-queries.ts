import { auditValues } from '../shared/write-values.js';
import type { RunStore } from '../../../ports/store.js';
import type { Synchronous } from './synchronous.js';
import type { StoreContext } from './sqlite-context.js';
import { toArtifact, toAudit } from '../shared/rows.js';
import { selectFiltered } from './select-filtered.js';

type RecordQueries = Pick<
  Synchronous<RunStore>,
  'addArtifact' | 'listArtifacts' | 'listArtifactsBefore' | 'removeArtifact' | 'appendAudit' | 'listAudit'
>;

/** Artifact references and the audit trail: rows that record what happened, keyed by run. */
export function recordQueries(ctx: StoreContext): RecordQueries {
  return {
    addArtifact(ref) {
      // A re-plan within one run replaces its artifact of the same kind.
      const row = ctx
        .stmt(
          `INSERT INTO artifacts (run_id, kind, key, sha256, size, created_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (run_id, kind) DO UPDATE SET
             key = excluded.key, sha256 = excluded.sha256, size = excluded.size, created_at = excluded.created_at
           RETURNING *`,
        )
        .get(ref.runId, ref.kind, ref.key, ref.sha256, ref.size, ctx.nowMs());
      return toArtifact(row);
    },

    listArtifacts(runId) {
      return ctx.stmt('SELECT * FROM artifacts WHERE run_id = ? ORDER BY created_at, kind').all(runId).map(toArtifact);
    },

    listArtifactsBefore(before) {
      return ctx
        .stmt(
          `SELECT a.* FROM artifacts a JOIN runs r ON r.id = a.run_id
           WHERE r.finished_at IS NOT NULL AND a.created_at < ? ORDER BY a.created_at, a.run_id, a.kind`,
        )
        .all(before.getTime())
        .map(toArtifact);
    },

    removeArtifact(runId, kind) {
      ctx.stmt('DELETE FROM artifacts WHERE run_id = ? AND kind = ?').run(runId, kind);
    },

    appendAudit(entry) {
      const row = ctx
        .stmt(
          `INSERT INTO audit (at, actor, action, run_id, stack, plan_sha256, detail) VALUES (?, ?, ?, ?, ?, ?, ?)
           RETURNING *`,
        )
        .get(...auditValues(entry));
      return toAudit(row);
    },

    /** Oldest first; with `limit`, the latest `limit` entries, still oldest first. */
    listAudit(query = {}) {
      const filters = { run_id: query.runId, stack: query.stack };
      return selectFiltered(ctx, 'audit', filters, 'id DESC', query.limit).map(toAudit).reverse();
    },
  };
}
