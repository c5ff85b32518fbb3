import { z } from 'zod';
import { describeMissing } from '../../domain/approvals/evaluate.js';
import { formatDuration } from '../../domain/duration.js';
import type { ActionCounts } from '../../domain/plan/model.js';
import { formatCounts } from '../../domain/plan/render-text.js';
import type { StackState } from '../../app/cli/status.js';
import { terminalSafe } from './policy-report.js';
import { DeadOutboxJson } from './outbox-report.js';

const Counts = z
  .object({ create: z.number(), update: z.number(), delete: z.number(), replace: z.number(), read: z.number() })
  .describe('resource changes of a plan, by action');
const At = z.iso.datetime().describe('a UTC time, ISO 8601');

/**
 * `driftgate status --json`, format version 1. Fields are added, never renamed or removed, within a
 * version; `status` and run `state` are the domain's names, so a state added later appears as itself.
 */
export const StatusReportJson = z.object({
  version: z.literal(1),
  at: At.describe('when the store was read'),
  stacks: z.array(
    z.object({
      name: z.string(),
      environment: z.string().nullable(),
      status: z
        .string()
        .describe(
          "the stack's state: unknown (never checked), in_sync, drifted, pending_approval (a code change waits), errored (its last check failed), blocked (an apply was interrupted)",
        ),
      lastCheck: z
        .object({
          at: At,
          runId: z.string().nullable(),
          state: z.string().nullable().describe("the last check's run state (no_changes, drifted, errored, …)"),
          counts: Counts.nullable(),
          error: z.string().nullable(),
        })
        .nullable()
        .describe('null: never checked'),
      counts: Counts.nullable().describe('of the open drift or the pending change'),
      blocked: z.object({ reason: z.string() }).nullable().describe('set until `driftgate unlock STACK`'),
      lock: z
        .object({
          runId: z.string(),
          acquiredAt: At,
          expiresAt: At,
          owner: z.object({ host: z.string(), pid: z.number() }).nullable(),
        })
        .nullable()
        .describe('the run holding the stack lock while it plans or applies'),
      silence: z.object({ until: At, by: z.string(), reason: z.string().nullable() }).nullable(),
      notConverging: z.number().nullable().describe('checks in a row that planned the same changes'),
      openRuns: z
        .array(
          z.object({
            id: z.string(),
            state: z.string().describe('planning, drifted, pending_approval, approved or applying'),
            kind: z.string().nullable().describe('drift or pending_change'),
            trigger: z.string(),
            createdAt: At,
            counts: Counts.nullable(),
            approvals: z.array(z.object({ user: z.string(), at: At })),
            approvalsNeeded: z
              .number()
              .nullable()
              .describe('null: no approvers rule covers the stack, or the run is planning or applying'),
            approvalsMissing: z.array(z.object({ count: z.number(), groups: z.array(z.string()) })),
          }),
        )
        .describe('runs not finished, newest first'),
    }),
  ),
  outbox: DeadOutboxJson.optional(),
});
export type StatusReportJson = z.infer<typeof StatusReportJson>;

/** Exit 2 when a stack needs a person (drift, a change waiting, a failed check, a block), as `check` does. */
export function statusExitCode(states: readonly StackState[]): 0 | 2 {
  return states.some((s) => s.status !== 'in_sync' && s.status !== 'unknown') ? 2 : 0;
}

const counts = (c: ActionCounts | undefined) => (c ? { ...c } : null);

export function statusReportJson(states: readonly StackState[], now: Date): StatusReportJson {
  return {
    version: 1,
    at: now.toISOString(),
    stacks: states.map((s) => {
      const last = s.lastRun;
      return {
        name: s.name,
        environment: s.environment ?? null,
        status: s.status,
        lastCheck: s.record?.lastCheckAt
          ? {
              at: s.record.lastCheckAt.toISOString(),
              runId: s.record.lastRunId ?? null,
              state: last?.state ?? null,
              counts: counts(last?.counts),
              error: last?.error ?? null,
            }
          : null,
        counts: counts(s.counts),
        blocked: s.record?.blockedReason ? { reason: s.record.blockedReason } : null,
        lock: s.lock
          ? {
              runId: s.lock.runId,
              acquiredAt: s.lock.acquiredAt.toISOString(),
              expiresAt: s.lock.expiresAt.toISOString(),
              owner: s.lock.owner ? { host: s.lock.owner.host, pid: s.lock.owner.pid } : null,
            }
          : null,
        silence: s.silence
          ? { until: s.silence.until.toISOString(), by: s.silence.by, reason: s.silence.reason ?? null }
          : null,
        notConverging: s.notConverging ?? null,
        openRuns: (s.openRuns ?? []).map(({ run, approvals, progress }) => ({
          id: run.id,
          state: run.state,
          kind: run.kind ?? null,
          trigger: run.trigger,
          createdAt: run.createdAt.toISOString(),
          counts: counts(run.counts),
          approvals: approvals.map((a) => ({ user: a.userId, at: a.at.toISOString() })),
          approvalsNeeded: progress?.need ?? null,
          approvalsMissing: (progress?.missing ?? []).map((m) => ({ count: m.count, groups: [...m.groups] })),
        })),
      };
    }),
  };
}

const LABELS: Record<string, string> = {
  unknown: 'never checked',
  in_sync: 'in sync',
  pending_approval: 'pending change',
  errored: 'check failed',
};
/** The domain's name, readable; a state this table does not know yet shows as its own name. */
const label = (status: string) => LABELS[status] ?? status.replace(/_/g, ' ');

const COLORS: Record<string, string> = {
  in_sync: '\u001b[32m',
  drifted: '\u001b[33m',
  pending_approval: '\u001b[36m',
  errored: '\u001b[31m',
  blocked: '\u001b[31m',
};

const COLUMNS = ['STACK', 'STATE', 'LAST CHECK', 'RUN', 'CHANGES'] as const;

function when(at: Date, now: Date): string {
  const stamp = `${at.toISOString().slice(0, 16).replace('T', ' ')}Z`;
  const ms = now.getTime() - at.getTime();
  return ms >= 0 ? `${stamp} (${formatDuration(ms)} ago)` : `${stamp} (in ${formatDuration(-ms)})`;
}

/** What is under way or in the way for one stack: its open runs and approvals, lock, block, silence. */
function detailLines(s: StackState, now: Date): string[] {
  const lines: string[] = [];
  for (const { run, approvals, progress } of s.openRuns ?? []) {
    const parts = [`run ${run.id}: ${label(run.state)}${run.counts ? `, ${formatCounts(run.counts)}` : ''}`];
    if (progress) {
      const by = approvals.length ? `approved by ${approvals.map((a) => terminalSafe(a.userId)).join(', ')} ` : '';
      const missing = progress.missing?.length ? `, needs ${describeMissing(progress.missing)}` : '';
      parts.push(`${by}(${progress.have}/${progress.need})${missing}`);
    } else if (run.state === 'drifted' || run.state === 'pending_approval')
      parts.push('no approvers rule covers this stack');
    lines.push(parts.join('; '));
  }
  if (s.lock)
    lines.push(
      `locked by run ${s.lock.runId} until ${when(s.lock.expiresAt, now)}${s.lock.owner ? ` (${terminalSafe(s.lock.owner.host)} pid ${s.lock.owner.pid})` : ''}`,
    );
  if (s.record?.blockedReason)
    lines.push(
      `blocked: ${terminalSafe(s.record.blockedReason)}; once its real state is checked: driftgate unlock ${s.name}`,
    );
  if (s.lastRun?.state === 'errored' && s.lastRun.error)
    lines.push(`last check failed: ${terminalSafe(s.lastRun.error.split('\n')[0] ?? '')}`);
  if (s.silence)
    lines.push(
      `silenced until ${when(s.silence.until, now)} by ${terminalSafe(s.silence.by)}${s.silence.reason ? `: ${terminalSafe(s.silence.reason)}` : ''}`,
    );
  if (s.notConverging) lines.push(`not converging: the same plan for ${s.notConverging} checks`);
  return lines;
}

/** `driftgate status`: one row per stack, and under it what is under way or in the way. */
export function renderStatusReport(states: readonly StackState[], now: Date, options: { color: boolean }): string {
  if (states.length === 0) return 'no stacks configured\n';
  const rows = states.map((s) => [
    terminalSafe(s.name),
    label(s.status),
    s.record?.lastCheckAt ? when(s.record.lastCheckAt, now) : '-',
    s.record?.lastRunId ?? '-',
    s.counts ? formatCounts(s.counts) : '',
  ]);
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[], status?: string) =>
    cells
      .map((c, i) => {
        const padded = c.padEnd(widths[i]!);
        const code = i === 1 && status && options.color ? COLORS[status] : undefined;
        return code ? `${code}${padded}\u001b[0m` : padded;
      })
      .join('  ')
      .trimEnd();
  const out = [line(COLUMNS)];
  states.forEach((s, i) => {
    out.push(line(rows[i]!, s.status), ...detailLines(s, now).map((l) => `    ${l}`));
  });
  return `${out.join('\n')}\n`;
}
