/** What `/drift status` and the App Home show: every configured stack with its state, read from the store. */
import type { Store } from '../ports/store.js';
import type { Stack } from '../domain/stack.js';
import { AWAITING_DECISION } from '../domain/run/state.js';
import type { PendingApprovalItem } from './blocks/render-home.js';
import type { StackStatusRow } from './blocks/status-blocks.js';
import type { RunMessages } from './notifier/run-messages.js';

export function stackRows(
  store: Store,
  stacks: readonly Stack[],
  now: Date,
  notConvergingAfter = Number.POSITIVE_INFINITY,
): StackStatusRow[] {
  const records = new Map(store.listStacks().map((r) => [r.name, r]));
  const waiting = store.listRuns({ states: [...AWAITING_DECISION] });
  return stacks.map((stack) => {
    const record = records.get(stack.name);
    const pending = waiting.filter((r) => r.stack === stack.name);
    const counts = record?.openDrift?.counts ?? pending[0]?.counts;
    const silence = store.getSilence(stack.name, now);
    return {
      name: stack.name,
      ...(stack.environment ? { environment: stack.environment } : {}),
      status: record?.status ?? 'unknown',
      ...(record?.lastCheckAt ? { lastCheckAt: record.lastCheckAt } : {}),
      ...(counts ? { counts } : {}),
      ...(pending.length ? { pendingApprovals: pending.length } : {}),
      ...(silence ? { silencedUntil: silence.until } : {}),
      ...(record?.blockedReason ? { blockedReason: record.blockedReason } : {}),
      ...(record?.samePlan && record.samePlan.checks >= notConvergingAfter
        ? { notConverging: record.samePlan.checks }
        : {}),
    };
  });
}

/** Runs waiting for a person, newest first, with their approval progress. */
export function pendingApprovals(
  store: Store,
  stack: (name: string) => Stack | undefined,
  messages: RunMessages,
): PendingApprovalItem[] {
  return store.listRuns({ states: ['drifted', 'pending_approval'], limit: 100 }).flatMap((run) => {
    const config = stack(run.stack);
    if (!config) return [];
    const progress = messages.approvalInfo(run)?.progress;
    return [
      {
        stack: { name: config.name, environment: config.environment, mode: config.mode },
        run,
        ...(progress ? { progress } : {}),
      },
    ];
  });
}
