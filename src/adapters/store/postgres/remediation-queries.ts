import type { RunStore } from '../../../ports/store.js';
import { remediationValues, toRemediation } from '../shared/remediation-row.js';
import { firstRow, type PgContext } from './postgres-context.js';

/** One remediation PR per stack and drift fingerprint; a later one for the same drift replaces it. */
export function remediationQueries(ctx: PgContext): Pick<RunStore, 'saveRemediation' | 'getRemediation'> {
  return {
    async saveRemediation(r) {
      await ctx.db.query(
        `INSERT INTO remediations (stack, fingerprint, run_id, repository, branch, pr_number, pr_url, requested_by,
           created_at, codified, left_for_person)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (stack, fingerprint) DO UPDATE SET
           run_id = excluded.run_id, repository = excluded.repository, branch = excluded.branch,
           pr_number = excluded.pr_number, pr_url = excluded.pr_url, requested_by = excluded.requested_by,
           created_at = excluded.created_at, codified = excluded.codified, left_for_person = excluded.left_for_person`,
        remediationValues(r),
      );
    },
    async getRemediation(stack, fingerprint) {
      const row = await firstRow(ctx, 'SELECT * FROM remediations WHERE stack = $1 AND fingerprint = $2', [
        stack,
        fingerprint,
      ]);
      return row === undefined ? undefined : toRemediation(row);
    },
  };
}
