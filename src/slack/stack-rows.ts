/** What `/drift status` and the App Home show: every configured stack with its state, read from the store. */
import type { Store } from '../ports/store.js';
import type { Stack } from '../domain/stack.js';
import { readStackStatus } from '../services/stack-status.js';
import type { PendingApprovalItem } from './blocks/render-home.js';
import type { StackStatusRow } from './blocks/status-blocks.js';
import type { RunMessages } from './notifier/run-messages.js';

export async function stackRows(
  store: Store,
  stacks: readonly Stack[],
  now: Date,
  notConvergingAfter = Number.POSITIVE_INFINITY,
): Promise<StackStatusRow[]> {
  return (await readStackStatus(store, stacks, { now, notConvergingAfter })).map((state) => ({
    name: state.name,
    ...(state.environment ? { environment: state.environment } : {}),
    status: state.status,
    ...(state.record?.lastCheckAt ? { lastCheckAt: state.record.lastCheckAt } : {}),
    ...(state.counts ? { counts: state.counts } : {}),
    ...(state.awaiting.length ? { pendingApprovals: state.awaiting.length } : {}),
    ...(state.silence ? { silencedUntil: state.silence.until } : {}),
    ...(state.record?.blockedReason ? { blockedReason: state.record.blockedReason } : {}),
    ...(state.notConverging ? { notConverging: state.notConverging } : {}),
  }));
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
