import { setTimeout as sleep } from 'node:timers/promises';
import type { StackLock } from '../../domain/run/model.js';
import type { ServiceDeps } from './deps.js';

export type HeldLock = { acquired: true; release(): Promise<void> } | { acquired: false; holder: StackLock };

/**
 * Takes the stack lock for a run and keeps it while the run works, however long init, plan, show or apply
 * take: a heartbeat renews it three times per TTL, so a lock lapses only when its process stops.
 */
export async function holdStackLock(
  deps: Pick<ServiceDeps, 'store' | 'logger' | 'lockTtlMs'>,
  stack: string,
  runId: string,
): Promise<HeldLock> {
  const { store, logger, lockTtlMs } = deps;
  const got = await store.acquireLock(stack, runId, lockTtlMs);
  if (!got.acquired) return got;
  const beat = setInterval(
    async () => {
      try {
        if (!(await store.renewLock(stack, runId, lockTtlMs)))
          logger.warn({ stack, runId }, 'stack lock was broken while held');
      } catch (err) {
        logger.warn({ err, stack, runId }, 'stack lock renewal failed');
      }
    },
    Math.max(50, Math.floor(lockTtlMs / 3)),
  );
  beat.unref();
  return {
    acquired: true,
    async release() {
      clearInterval(beat);
      await store.releaseLock(stack, runId);
    },
  };
}

/**
 * holdStackLock, waiting up to `waitMs` while another process's run holds the stack: taken as soon as that
 * run lets go (another run may take it first: then it waits again, within the same time).
 */
export async function holdStackLockWaiting(
  deps: Pick<ServiceDeps, 'store' | 'logger' | 'lockTtlMs' | 'now'> & { lockPollMs?: number },
  stack: string,
  runId: string,
  waitMs: number,
  signal: AbortSignal = new AbortController().signal,
): Promise<HeldLock> {
  const until = deps.now().getTime() + waitMs;
  for (;;) {
    const held = await holdStackLock(deps, stack, runId);
    const left = until - deps.now().getTime();
    if (held.acquired || left <= 0 || !(await waitForStackLock(deps, stack, left, signal))) return held;
  }
}

/**
 * Waits until no run holds the stack's lock, for at most `timeoutMs`: processes sharing a store (replicas,
 * workers) check the same stacks, so a check that comes while another process's check or apply holds the
 * stack waits its turn instead of failing, as a check queued behind an apply does in one process. True
 * when free; false when the wait ran out or was aborted (the check then fails on the lock, saying whose).
 */
export async function waitForStackLock(
  deps: Pick<ServiceDeps, 'store' | 'now'> & { lockPollMs?: number },
  stack: string,
  timeoutMs: number,
  signal: AbortSignal,
  /** Told once, when the wait starts, who holds the lock (a CLI says so). */
  onWait?: (holder: StackLock) => void,
): Promise<boolean> {
  const until = deps.now().getTime() + timeoutMs;
  let told = false;
  for (;;) {
    const lock = await deps.store.getLock(stack);
    if (!lock || lock.expiresAt.getTime() <= deps.now().getTime()) return true;
    if (!told) {
      told = true;
      onWait?.(lock);
    }
    if (deps.now().getTime() >= until || signal.aborted) return false;
    await sleep(deps.lockPollMs ?? 1000, undefined, { signal }).catch(() => undefined);
  }
}
