import { isInterruptedApplyKey } from '../../domain/oncall/page-event.js';
import { pageItem } from '../../domain/oncall/page-item.js';
import type { StackLock } from '../../domain/run/model.js';
import type { Stack } from '../../domain/stack.js';
import type { SlackStore } from '../../ports/slack-store.js';
import type { RunStore } from '../../ports/store.js';
import { PAGE_RESOLVED, PAGE_TRIGGERED } from '../notify/page-oncall.js';
import { actorOf, type Operator, type OperatorRefusal, operatorRefusal, refuseAct, type RightsDeps } from './rights.js';

export interface UnlockDeps {
  store: Pick<
    RunStore,
    'getStack' | 'getLock' | 'breakLock' | 'unblockStack' | 'appendAudit' | 'listAudit' | 'atomically'
  > &
    Pick<SlackStore, 'enqueue'>;
  now: () => Date;
  /** Whether a live process other than this one holds the lock (see heldByAnother): then it is not stale. */
  heldByAnother(lock: StackLock): boolean;
  /**
   * Whether this process's own scheduler checks or applies the stack right now (serve's): its lock is not
   * stale either. Absent in a process that runs none (a terminal's `driftgate unlock`).
   */
  runningHere?(stack: string): boolean;
}

export interface Unlocked {
  status: 'unlocked';
  blockedReason?: string;
  brokenLock?: StackLock;
  /** The interrupted applies' incidents resolved with the block (their dedup keys). */
  resolved: string[];
}

/** Not unlocked: `lock` is the live lock found, when that was why. */
export type UnlockRefusal = OperatorRefusal & { lock?: StackLock };

/**
 * `driftgate unlock` and `/drift unlock`: lifts the block an interrupted apply left and breaks a stale lock,
 * after a person checked the stack's real state, and audits who did. A Slack user must be someone who may
 * approve the stack's plans. A lock that a live process holds (a check or apply of this process, or of
 * another replica, which this process's scheduler cannot see) is not stale: refused. Every refusal is
 * audited as `unlock_refused`, whichever way it came in (Slack or the CLI).
 * The incidents the interrupted applies paged are resolved with the block, through the outbox (whichever
 * process delivers it): the person who unblocked has dealt with them, and nothing else would close them.
 */
export async function unlockStack(
  deps: UnlockDeps,
  stack: Stack,
  by: { terminal: string },
): Promise<Unlocked | UnlockRefusal>;
export async function unlockStack(
  deps: UnlockDeps & RightsDeps,
  stack: Stack,
  by: Operator,
): Promise<Unlocked | UnlockRefusal>;
export async function unlockStack(
  deps: UnlockDeps & Partial<RightsDeps>,
  stack: Stack,
  by: Operator,
): Promise<Unlocked | UnlockRefusal> {
  const { store } = deps;
  const name = stack.name;
  const actor = actorOf(by);
  // The overloads give a Slack user's unlock the approvers rules to check against.
  const refused = 'slackUser' in by ? await operatorRefusal(deps as RightsDeps, stack, actor, 'unlock') : undefined;
  if (refused) return refused;
  const running = (message: string) => refuseAct(deps, name, actor, 'unlock', 'running', message);
  if (deps.runningHere?.(name))
    return running(
      `A check or apply of ${name} is running right now; its lock is not stale. Try again when it is done.`,
    );
  // A check or apply of another process at work right now (another replica's): its lock is not stale.
  const held = await store.getLock(name);
  if (held && deps.heldByAnother(held)) {
    const message = `Run ${held.runId} of ${name} is running in another driftgate process right now; its lock is not stale. Try again when it is done.`;
    return { ...(await running(message)), lock: held };
  }
  const record = await store.getStack(name);
  const lock = await store.breakLock(name);
  const blockedReason = record?.blockedReason;
  const resolved = blockedReason
    ? await store.atomically(async (tx) => {
        await tx.unblockStack(name);
        return resolveInterruptedApplyPages({ store: tx, now: deps.now }, name);
      })
    : [];
  await store.appendAudit({
    at: deps.now(),
    actor,
    action: 'unlock',
    stack: name,
    detail: { blockedReason: blockedReason ?? null, brokenLock: lock?.runId ?? null },
  });
  return {
    status: 'unlocked',
    ...(blockedReason ? { blockedReason } : {}),
    ...(lock ? { brokenLock: lock } : {}),
    resolved,
  };
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
