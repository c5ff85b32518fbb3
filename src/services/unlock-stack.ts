import { isInterruptedApplyKey } from '../domain/oncall/page-event.js';
import { pageItem } from '../domain/oncall/page-item.js';
import type { StackLock } from '../domain/run/model.js';
import type { SlackStore } from '../ports/slack-store.js';
import type { RunStore } from '../ports/store.js';
import { PAGE_RESOLVED, PAGE_TRIGGERED } from './page-oncall.js';

export interface UnlockDeps {
  store: Pick<
    RunStore,
    'getStack' | 'getLock' | 'breakLock' | 'unblockStack' | 'appendAudit' | 'listAudit' | 'atomically'
  > &
    Pick<SlackStore, 'enqueue'>;
  now: () => Date;
  /** Whether a live process other than this one holds the lock (see heldByAnother): then it is not stale. */
  heldByAnother(lock: StackLock): boolean;
}

export interface Unlocked {
  blockedReason?: string;
  brokenLock?: StackLock;
  /** The interrupted applies' incidents resolved with the block (their dedup keys). */
  resolved: string[];
}

/**
 * `driftgate unlock` and `/drift unlock`: lifts the block an interrupted apply left and breaks a stale lock,
 * after a person checked the stack's real state, and audits who did. A lock that a live process holds (a
 * check or apply of another replica, which this process's scheduler cannot see) is not stale: refused.
 * The incidents the interrupted applies paged are resolved with the block, through the outbox (whichever
 * process delivers it): the person who unblocked has dealt with them, and nothing else would close them.
 */
export async function unlockStack(
  deps: UnlockDeps,
  stack: string,
  actor: string,
): Promise<Unlocked | { refused: StackLock }> {
  const { store } = deps;
  // A check or apply of another process at work right now (another replica's): its lock is not stale.
  const held = await store.getLock(stack);
  if (held && deps.heldByAnother(held)) return { refused: held };
  const record = await store.getStack(stack);
  const lock = await store.breakLock(stack);
  const blockedReason = record?.blockedReason;
  const resolved = blockedReason
    ? await store.atomically(async (tx) => {
        await tx.unblockStack(stack);
        return resolveInterruptedApplyPages({ store: tx, now: deps.now }, stack);
      })
    : [];
  await store.appendAudit({
    at: deps.now(),
    actor,
    action: 'unlock',
    stack,
    detail: { blockedReason: blockedReason ?? null, brokenLock: lock?.runId ?? null },
  });
  return { ...(blockedReason ? { blockedReason } : {}), ...(lock ? { brokenLock: lock } : {}), resolved };
}

/** Every interrupted apply's incident of the stack that was triggered and not yet resolved, resolved now. */
async function resolveInterruptedApplyPages(
  deps: { store: Pick<UnlockDeps['store'], 'listAudit' | 'appendAudit' | 'enqueue'>; now: () => Date },
  stack: string,
): Promise<string[]> {
  const open = new Map<string, { routingKeyEnv: string; runId?: string }>();
  for (const entry of await deps.store.listAudit({ stack, limit: 500 })) {
    const key = entry.detail?.dedupKey;
    if (!isInterruptedApplyKey(key)) continue;
    const routingKeyEnv = entry.detail?.routingKeyEnv;
    if (entry.action === PAGE_TRIGGERED && typeof routingKeyEnv === 'string')
      open.set(key as string, { routingKeyEnv, ...(entry.runId ? { runId: entry.runId } : {}) });
    if (entry.action === PAGE_RESOLVED) open.delete(key as string);
  }
  for (const [dedupKey, { routingKeyEnv, runId }] of open) {
    await deps.store.enqueue(
      pageItem(stack, { routingKeyEnv, event: { event_action: 'resolve', dedup_key: dedupKey } }),
    );
    await deps.store.appendAudit({
      at: deps.now(),
      actor: 'system',
      action: PAGE_RESOLVED,
      stack,
      ...(runId ? { runId } : {}),
      detail: { dedupKey, routingKeyEnv },
    });
  }
  return [...open.keys()];
}
