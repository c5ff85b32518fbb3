import { z } from 'zod';
import type { ActionCounts } from '../../../domain/plan/model.js';
import type { ArtifactRef, AuditEntry, ProcessOwner, Run, StackLock, StackRecord } from '../../../domain/run/model.js';
import { RUN_STATES, RUN_TRIGGERS } from '../../../domain/run/state.js';

/**
 * Row shapes as SQLite hands them back, parsed with zod so a hand-edited or corrupted row fails here,
 * at the boundary, with the column named, instead of deep inside a service.
 */
export const epoch = z.number().int();
export const optText = z.string().nullable();
const optEpoch = epoch.nullable();

const ActionCountsJson = z.strictObject({
  create: z.number().int().nonnegative(),
  update: z.number().int().nonnegative(),
  delete: z.number().int().nonnegative(),
  replace: z.number().int().nonnegative(),
  read: z.number().int().nonnegative(),
});

export function json<T extends z.ZodType>(schema: T) {
  return z.string().transform((text, ctx): z.infer<T> => {
    try {
      const parsed = schema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
      ctx.addIssue({
        code: 'custom',
        message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
      });
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `not JSON: ${(err as Error).message}` });
    }
    return z.NEVER;
  });
}

export const RunRow = z.object({
  id: z.string(),
  stack: z.string(),
  state: z.enum(RUN_STATES),
  trigger: z.enum(RUN_TRIGGERS),
  kind: z.enum(['drift', 'pending_change']).nullable(),
  created_at: epoch,
  updated_at: epoch,
  finished_at: optEpoch,
  commit_sha: optText,
  fingerprint: optText,
  counts: json(ActionCountsJson).nullable(),
  plan_sha256: optText,
  error: optText,
  superseded_by: optText,
});

export const StackRow = z.object({
  name: z.string(),
  status: z.enum(['unknown', 'in_sync', 'drifted', 'pending_approval', 'errored', 'blocked']),
  last_check_at: optEpoch,
  last_run_id: optText,
  drift_fingerprint: optText,
  drift_run_id: optText,
  drift_first_seen_at: optEpoch,
  drift_last_seen_at: optEpoch,
  drift_counts: json(ActionCountsJson).nullable(),
  blocked_reason: optText,
  last_applied_commit: optText,
  same_plan_fingerprint: optText.optional(),
  same_plan_checks: z.number().int().nonnegative().optional(),
});

export const ArtifactRow = z.object({
  run_id: z.string(),
  kind: z.enum([
    'plan',
    'plan_json',
    'plan_log',
    'apply_log',
    'analysis',
    'policy',
    'commits',
    'remediation',
    'attribution',
    'evidence',
  ]),
  key: z.string(),
  sha256: z.string(),
  size: z.number().int().nonnegative(),
  created_at: epoch,
});

export const AuditRow = z.object({
  id: z.number().int(),
  at: epoch,
  actor: z.string(),
  action: z.string(),
  run_id: optText,
  stack: optText,
  plan_sha256: optText,
  detail: json(z.record(z.string(), z.unknown())).nullable(),
});

/** The owner columns of locks and runs; all NULL on rows written before owners were recorded. */
export const OwnerColumns = z.object({
  owner_host: optText.optional(),
  owner_pid: epoch.nullable().optional(),
  owner_start: optText.optional(),
});

export const LockRow = OwnerColumns.extend({
  stack: z.string(),
  run_id: z.string(),
  acquired_at: epoch,
  expires_at: epoch,
});

/** Parses one row; the error names the table and the row so the bad data can be found. */
export function parseRow<T extends z.ZodType>(schema: T, table: string, row: unknown): z.infer<T> {
  const parsed = schema.safeParse(row);
  if (parsed.success) return parsed.data;
  const id =
    (row as Record<string, unknown> | undefined)?.id ?? (row as Record<string, unknown> | undefined)?.name ?? '?';
  const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  throw new Error(`run store: unreadable ${table} row ${String(id)}: ${issues}`);
}

const date = (ms: number) => new Date(ms);
const optDate = (ms: number | null) => (ms === null ? undefined : new Date(ms));
export const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

export function toRun(raw: unknown): Run {
  const r = parseRow(RunRow, 'runs', raw);
  return dropUndefined({
    id: r.id,
    stack: r.stack,
    state: r.state,
    trigger: r.trigger,
    kind: opt(r.kind),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
    finishedAt: optDate(r.finished_at),
    commitSha: opt(r.commit_sha),
    fingerprint: opt(r.fingerprint),
    counts: opt(r.counts) as ActionCounts | undefined,
    planSha256: opt(r.plan_sha256),
    error: opt(r.error),
    supersededBy: opt(r.superseded_by),
  });
}

export function toStack(raw: unknown): StackRecord {
  const r = parseRow(StackRow, 'stacks', raw);
  const hasDrift =
    r.drift_fingerprint !== null &&
    r.drift_run_id !== null &&
    r.drift_first_seen_at !== null &&
    r.drift_last_seen_at !== null;
  return dropUndefined({
    name: r.name,
    status: r.status,
    lastCheckAt: optDate(r.last_check_at),
    lastRunId: opt(r.last_run_id),
    openDrift: hasDrift
      ? {
          fingerprint: r.drift_fingerprint!,
          runId: r.drift_run_id!,
          firstSeenAt: date(r.drift_first_seen_at!),
          lastSeenAt: date(r.drift_last_seen_at!),
          counts: (r.drift_counts ?? { create: 0, update: 0, delete: 0, replace: 0, read: 0 }) as ActionCounts,
        }
      : undefined,
    blockedReason: opt(r.blocked_reason),
    lastAppliedCommit: opt(r.last_applied_commit),
    // Named from the second check on: one plan is not yet a repeated one.
    samePlan:
      r.same_plan_fingerprint && (r.same_plan_checks ?? 0) >= 2
        ? { fingerprint: r.same_plan_fingerprint, checks: r.same_plan_checks! }
        : undefined,
  });
}

export function toArtifact(raw: unknown): ArtifactRef {
  const r = parseRow(ArtifactRow, 'artifacts', raw);
  return { runId: r.run_id, kind: r.kind, key: r.key, sha256: r.sha256, size: r.size, createdAt: date(r.created_at) };
}

export function toAudit(raw: unknown): AuditEntry {
  const r = parseRow(AuditRow, 'audit', raw);
  return dropUndefined({
    id: r.id,
    at: date(r.at),
    actor: r.actor,
    action: r.action,
    runId: opt(r.run_id),
    stack: opt(r.stack),
    planSha256: opt(r.plan_sha256),
    detail: opt(r.detail),
  });
}

export function toOwner(r: z.infer<typeof OwnerColumns>): ProcessOwner | undefined {
  if (r.owner_host == null || r.owner_pid == null) return undefined;
  return { host: r.owner_host, pid: r.owner_pid, start: r.owner_start ?? '' };
}

export function toLock(raw: unknown): StackLock {
  const r = parseRow(LockRow, 'locks', raw);
  return dropUndefined({
    stack: r.stack,
    runId: r.run_id,
    acquiredAt: date(r.acquired_at),
    expiresAt: date(r.expires_at),
    owner: toOwner(r),
  });
}

/** Optional fields come back absent rather than `undefined`, so `toEqual` and spreads behave. */
export function dropUndefined<T extends object>(obj: T): T {
  for (const key of Object.keys(obj) as (keyof T)[]) if (obj[key] === undefined) delete obj[key];
  return obj;
}
