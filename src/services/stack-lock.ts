import type { StackLock } from '../domain/run/model.js';
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
