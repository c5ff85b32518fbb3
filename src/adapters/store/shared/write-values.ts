import type { AuditEntry } from '../../../domain/run/model.js';
import type { RunPatch } from '../../../ports/store.js';

/**
 * Values both adapters bind, in their statements' column order: one place says how a patch or an audit
 * entry becomes a row (JSON as text, an absent field as NULL so COALESCE keeps the column).
 */
export function runPatchValues(patch: RunPatch): unknown[] {
  return [
    patch.kind ?? null,
    patch.fingerprint ?? null,
    patch.counts ? JSON.stringify(patch.counts) : null,
    patch.planSha256 ?? null,
    patch.error ?? null,
    patch.supersededBy ?? null,
    patch.commitSha ?? null,
  ];
}

/** at, actor, action, run_id, stack, plan_sha256, detail. */
export function auditValues(entry: Omit<AuditEntry, 'id'>): unknown[] {
  return [
    entry.at.getTime(),
    entry.actor,
    entry.action,
    entry.runId ?? null,
    entry.stack ?? null,
    entry.planSha256 ?? null,
    entry.detail === undefined ? null : JSON.stringify(entry.detail),
  ];
}
