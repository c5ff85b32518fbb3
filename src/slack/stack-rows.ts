/** What `/drift status` and the App Home show: every configured stack with its state, read from the store. */
import type { Store } from '../ports/store.js';
import type { Stack } from '../domain/stack.js';
import { AWAITING_DECISION } from '../domain/run/state.js';
import type { PendingApprovalItem } from './blocks/render-home.js';
import type { StackStatusRow } from './blocks/status-blocks.js';
import type { RunMessages } from './notifier/run-messages.js';

export async function stackRows(
  store: Store,
  stacks: readonly Stack[],
  now: Date,
  notConvergingAfter = Number.POSITIVE_INFINITY,
): Promise<StackStatusRow[]> {
  const records = new Map((await store.listStacks()).map((r) => [r.name, r]));
  const waiting = await store.listRuns({ states: [...AWAITING_DECISION] });
  const rows: StackStatusRow[] = [];
  for (const stack of stacks) {
    const record = records.get(stack.name);
    const pending = waiting.filter((r) => r.stack === stack.name);
    const counts = record?.openDrift?.counts ?? pending[0]?.counts;
    const silence = await store.getSilence(stack.name, now);
    // Why its last plan failed (no state found, a terraform error): what to fix, without opening the run.
    const failed = record?.status === 'errored' && record.lastRunId ? await store.getRun(record.lastRunId) : undefined;
    rows.push({
      name: stack.name,
      ...(stack.environment ? { environment: stack.environment } : {}),
      status: record?.status ?? 'unknown',
      ...(record?.lastCheckAt ? { lastCheckAt: record.lastCheckAt } : {}),
      ...(counts ? { counts } : {}),
      ...(pending.length ? { pendingApprovals: pending.length } : {}),
      ...(silence ? { silencedUntil: silence.until } : {}),
      ...(record?.blockedReason ? { blockedReason: record.blockedReason } : {}),
      ...(failed?.error ? { error: failed.error } : {}),
      ...(record?.samePlan && record.samePlan.checks >= notConvergingAfter
        ? { notConverging: record.samePlan.checks }
        : {}),
    });
  }
  return rows;
}

/** Runs waiting for a person, newest first, with their approval progress. */
export async function pendingApprovals(
  store: Store,
  stack: (name: string) => Stack | undefined,
  messages: RunMessages,
): Promise<PendingApprovalItem[]> {
  const items: PendingApprovalItem[] = [];
  for (const run of await store.listRuns({ states: ['drifted', 'pending_approval'], limit: 100 })) {
    const config = stack(run.stack);
    if (!config) continue;
    const progress = (await messages.approvalInfo(run))?.progress;
    items.push({
      stack: { name: config.name, environment: config.environment, mode: config.mode },
      run,
      ...(progress ? { progress } : {}),
    });
  }
  return items;
}
