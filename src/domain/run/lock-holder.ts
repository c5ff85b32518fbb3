import type { StackLock } from './model.js';

/** Who holds a stack lock, for a person deciding whether to wait: `run R (pid P on host H, since T)`. */
export function describeLockHolder(lock: StackLock): string {
  const process = lock.owner ? `pid ${lock.owner.pid} on host ${lock.owner.host}, ` : '';
  return `run ${lock.runId} (${process}since ${lock.acquiredAt.toISOString()})`;
}

/**
 * Why a check of a locked stack did not run, and what to do: wait, or break the lock only when its holder
 * is gone (a live holder renews it; a dead one's lapses at `expiresAt`).
 */
export function stackLockedMessage(stack: string, lock: StackLock): string {
  return (
    `stack is locked by ${describeLockHolder(lock)}: another driftgate check or apply is working on it. ` +
    `Wait for it to finish; if that process is gone, its lock lapses at ${lock.expiresAt.toISOString()}, ` +
    `or \`driftgate unlock ${stack}\` breaks it now`
  );
}
