/** What `/drift status` and the App Home show: every configured stack with its state, read from the store. */
import type { Store } from '../ports/store.js';
import type { Stack } from '../domain/stack.js';
import { readStackStatus } from '../services/status/stack-status.js';
import type { PendingApprovalItem } from './blocks/render-home.js';
import type { StackStatusRow } from './blocks/status-blocks.js';
import type { RunMessages } from './notifier/run-messages.js';

export async function stackRows(
  store: Store,
  stacks: readonly Stack[],
  now: Date,
  notConvergingAfter = Number.POSITIVE_INFINITY,
): Promise<StackStatusRow[]> {
  const states = await readStackStatus(store, stacks, { now, notConvergingAfter });
  const rows: StackStatusRow[] = [];
  for (const state of states) {
    // Why its last plan failed (no state found, a terraform error): what to fix, without opening the run.
    const failed =
      state.record?.status === 'errored' && state.record.lastRunId
        ? await store.getRun(state.record.lastRunId)
        : undefined;
    rows.push({
      name: state.name,
      ...(state.environment ? { environment: state.environment } : {}),
      status: state.status,
      ...(state.record?.lastCheckAt ? { lastCheckAt: state.record.lastCheckAt } : {}),
      ...(state.counts ? { counts: state.counts } : {}),
      ...(state.awaiting.length ? { pendingApprovals: state.awaiting.length } : {}),
      ...(state.silence ? { silencedUntil: state.silence.until } : {}),
      ...(state.record?.blockedReason ? { blockedReason: state.record.blockedReason } : {}),
      ...(failed?.error ? { error: failed.error } : {}),
      ...(state.notConverging ? { notConverging: state.notConverging } : {}),
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
