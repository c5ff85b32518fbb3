import type { Stack } from '../../domain/stack.js';
import type { ServiceDeps } from '../runtime/deps.js';
import type { FromState, ResourceIndexKeeper } from './resource-index-keeper.js';

/**
 * The stacks of the config that no plan or state read ever indexed (a first deploy, a stack just added),
 * indexed from their state (`terraform state pull`, which starts no provider): change events naming
 * their resources match at once, instead of counting as unmatched until the schedule plans them. At
 * most `concurrency` pulls run at once. A stack from Git is left to its first plan: its code is only
 * fetched for a check. What a pull cannot read costs only that stack's index until its first plan.
 */
export async function indexUnplannedStacks(
  deps: Pick<ServiceDeps, 'logger'> & { keeper: Pick<ResourceIndexKeeper, 'has' | 'fromState'> },
  stacks: readonly Stack[],
  options: { concurrency: number; signal: AbortSignal },
): Promise<Record<FromState, number>> {
  const counts: Record<FromState, number> = { indexed: 0, unchanged: 0, none: 0, failed: 0 };
  const todo = stacks.filter((s) => !s.git && !deps.keeper.has(s.name));
  if (todo.length === 0) return counts;
  let next = 0;
  const pull = async () => {
    while (next < todo.length && !options.signal.aborted) {
      const stack = todo[next++]!;
      counts[await deps.keeper.fromState(stack, options.signal)]++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, todo.length) }, pull));
  deps.logger.info(
    { stacks: todo.length, ...counts, ...(options.signal.aborted ? { stopped: true } : {}) },
    'change events: stacks never planned indexed from their state',
  );
  return counts;
}
