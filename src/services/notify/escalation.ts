/**
 * Drift that nobody resolved within `slack.onCall.escalateAfter` is raised again (the notifier renders and
 * sends it): once per drift (fingerprint), and never for a silenced stack or a rejected (snoozed) drift.
 */
import type { Run, StackRecord } from '../../domain/run/model.js';
import type { Stack } from '../../domain/stack.js';
import type { Store } from '../../ports/store.js';

export interface EscalationDeps {
  store: Store;
  stack(name: string): Stack | undefined;
  now: () => Date;
}

export interface DueEscalation {
  stack: Stack;
  run: Run;
  drift: NonNullable<StackRecord['openDrift']>;
  ageMs: number;
  /** Who is raised: the stack's on-call. */
  mention: string;
  /** When it was found due. */
  at: Date;
}

/**
 * Every open drift older than `afterMs` on a stack with an on-call (`mentionOf`) that is not silenced, not
 * snoozed and not escalated yet.
 */
export async function dueEscalations(
  deps: EscalationDeps,
  afterMs: number,
  mentionOf: (stack: Stack) => string | undefined,
): Promise<DueEscalation[]> {
  const now = deps.now();
  const due: DueEscalation[] = [];
  for (const record of await deps.store.listStacks()) {
    const drift = record.openDrift;
    const stack = deps.stack(record.name);
    const mention = stack && mentionOf(stack);
    if (!drift || !stack || !mention) continue;
    const ageMs = now.getTime() - drift.firstSeenAt.getTime();
    if (ageMs < afterMs) continue;
    if (
      (await deps.store.getSilence(stack.name, now)) ||
      (await deps.store.isSnoozed(stack.name, drift.fingerprint, now))
    )
      continue;
    const done = (await deps.store.listAudit({ stack: stack.name, limit: 200 })).some(
      (a) => a.action === 'drift_escalated' && a.detail?.fingerprint === drift.fingerprint,
    );
    const run = await deps.store.getRun(drift.runId);
    if (done || !run) continue;
    due.push({ stack, run, drift, ageMs, mention, at: now });
  }
  return due;
}

/** The audit line that makes an escalation once per drift. */
export async function recordEscalation(deps: Pick<EscalationDeps, 'store'>, due: DueEscalation): Promise<void> {
  await deps.store.appendAudit({
    at: due.at,
    actor: 'system',
    action: 'drift_escalated',
    runId: due.run.id,
    stack: due.stack.name,
    detail: { fingerprint: due.drift.fingerprint, ageMs: due.ageMs },
  });
}
