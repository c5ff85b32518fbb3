import { z } from 'zod';
import type { RemediationRecord } from '../../../domain/remediation/record.js';
import { epoch, parseRow } from './rows.js';

/** A `remediations` row, the same in SQLite and Postgres. */
export const RemediationRow = z.object({
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

export function toRemediation(raw: unknown): RemediationRecord {
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

/** The values of a remediations row in column order (stack … left_for_person). */
export function remediationValues(r: RemediationRecord): unknown[] {
  return [
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
  ];
}
