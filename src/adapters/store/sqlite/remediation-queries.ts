import type { RunStore } from '../../../ports/store.js';
import type { StoreContext } from './sqlite-context.js';
import { remediationValues, toRemediation } from '../shared/remediation-row.js';
import type { Synchronous } from './synchronous.js';

export function remediationQueries(
  ctx: StoreContext,
): Pick<Synchronous<RunStore>, 'saveRemediation' | 'getRemediation'> {
  return {
    saveRemediation(r) {
      ctx
        .stmt(
          `INSERT INTO remediations (stack, fingerprint, run_id, repository, branch, pr_number, pr_url, requested_by, created_at, codified, left_for_person)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (stack, fingerprint) DO UPDATE SET
             run_id = excluded.run_id, repository = excluded.repository, branch = excluded.branch, pr_number = excluded.pr_number,
             pr_url = excluded.pr_url, requested_by = excluded.requested_by, created_at = excluded.created_at,
             codified = excluded.codified, left_for_person = excluded.left_for_person`,
        )
        .run(...remediationValues(r));
    },
    getRemediation(stack, fingerprint) {
      const row = ctx.stmt('SELECT * FROM remediations WHERE stack = ? AND fingerprint = ?').get(stack, fingerprint);
      return row === undefined ? undefined : toRemediation(row);
    },
  };
}
