import type { ResourceIndex } from '../../domain/change-events/resource-index.js';
import { errorMessage } from '../../domain/errors.js';
import type { RunStore } from '../../ports/store.js';
import type { ServiceDeps } from '../runtime/deps.js';

/**
 * Overlap of each incremental read: a row's time is its writer's clock, and replicas' and workers'
 * clocks may differ by this much without an update being missed.
 */
const CLOCK_OVERLAP_MS = 60_000;
/** Now and then the whole index is read again: a writer whose clock lags by more is caught up too. */
const FULL_READ_EVERY_MS = 10 * 60_000;

/**
 * Keeps `index` as the store has it: each refresh reads the stacks saved since the last (with overlap).
 * The next refresh is timed from the end of the last: on a slow store they never overlap, and stopping
 * waits for the one under way.
 */
export function followStoreIndex(
  deps: Pick<ServiceDeps, 'logger'> & { store: Pick<RunStore, 'listResourceIndexes'> },
  index: ResourceIndex,
  options: { keep: (stack: string) => boolean; everyMs: number; refreshed: (size: number) => void },
) {
  let newest: number | undefined;
  let lastFull = 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  /** A stack since removed from the config matches nothing, whatever the store still holds for it. */
  const dropRemoved = () => {
    for (const stack of index.stacks()) if (!options.keep(stack)) index.removeStack(stack);
  };
  const refresh = async () => {
    const full = newest === undefined || performance.now() - lastFull >= FULL_READ_EVERY_MS;
    if (full) lastFull = performance.now();
    const entries = await deps.store.listResourceIndexes(
      full ? {} : { updatedSince: new Date(newest! - CLOCK_OVERLAP_MS) },
    );
    for (const entry of entries) if (options.keep(entry.stack)) index.replaceStack(entry.stack, entry.resources);
    for (const entry of entries) newest = Math.max(newest ?? 0, entry.updatedAt.getTime());
    if (full) dropRemoved();
    options.refreshed(index.size);
  };
  const next = () => {
    timer = setTimeout(() => {
      running = refresh()
        .catch((err: unknown) =>
          deps.logger.warn({ err: errorMessage(err) }, 'change events: the index was not refreshed (retried)'),
        )
        .then(() => {
          if (!stopped) next();
        });
    }, options.everyMs);
    timer.unref();
  };
  return {
    index,
    refresh,
    /** `index` was just read whole from the store, up to the save `upTo`: that counts as a full read. */
    readUpTo(upTo: Date | undefined) {
      newest = upTo?.getTime();
      lastFull = performance.now();
      dropRemoved();
      options.refreshed(index.size);
    },
    start() {
      next();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      return running;
    },
  };
}
