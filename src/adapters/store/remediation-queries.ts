import { z } from 'zod';
import type { RemediationRecord } from '../../domain/remediation/record.js';
import type { RunStore } from '../../ports/store.js';
import type { Synchronous } from './synchronous.js';
import type { StoreContext } from './context.js';
import { epoch, parseRow } from './rows.js';

const RemediationRow = z.object({
  stack: z.string(),
  fingerprint: z.string(),
  run_id: z.string(),
  repository: z.string(),
  branch: z.string(),
  pr_number: z.number().int().positive(),
  pr_url: z.string(),
  requested_by: z.string(),
  created_at: epoch,
  codified: z.number().int().nonnegative(),
  left_for_person: z.number().int().nonnegative(),
});

function toRemediation(raw: unknown): RemediationRecord {
  const r = parseRow(RemediationRow, 'remediations', raw);
  return {
    stack: r.stack,
    fingerprint: r.fingerprint,
    runId: r.run_id,
    repository: r.repository,
    branch: r.branch,
    prNumber: r.pr_number,
    prUrl: r.pr_url,
    requestedBy: r.requested_by,
    createdAt: new Date(r.created_at),
    codified: r.codified,
    leftForPerson: r.left_for_person,
  };
}

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
        .run(
          r.stack,
          r.fingerprint,
          r.runId,
          r.repository,
          r.branch,
          r.prNumber,
          r.prUrl,
          r.requestedBy,
          r.createdAt.getTime(),
          r.codified,
          r.leftForPerson,
        );
    },
    getRemediation(stack, fingerprint) {
      const row = ctx.stmt('SELECT * FROM remediations WHERE stack = ? AND fingerprint = ?').get(stack, fingerprint);
      return row === undefined ? undefined : toRemediation(row);
    },
  };
}
