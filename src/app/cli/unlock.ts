import { openStore } from '../../adapters/store/open-store.js';
import { heldByAnother } from '../../adapters/store/shared/process-owner.js';
import type { DriftgateConfig } from '../../config/schema.js';
import type { Stack } from '../../domain/stack.js';
import { type Unlocked, type UnlockRefusal, unlockStack } from '../../services/operator/unlock.js';

/** `driftgate unlock STACK`: the use case `/drift unlock` calls, on the config's store, for `cli:<OS user>`. */
export async function unlockFromTerminal(
  config: Pick<DriftgateConfig, 'dataDir' | 'store'>,
  stack: Stack,
  actor: string,
): Promise<Unlocked | UnlockRefusal> {
  const store = await openStore(config);
  try {
    const now = () => new Date();
    return await unlockStack({ store, now, heldByAnother: (lock) => heldByAnother(lock, now()) }, stack, {
      terminal: actor,
    });
  } finally {
    await store.close();
  }
}
