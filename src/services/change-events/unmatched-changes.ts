import { UNMATCHED_LIMITS, type UnmatchedChange } from '../../domain/change-events/unmatched.js';
import { errorMessage } from '../../domain/errors.js';
import type { ServiceDeps } from '../runtime/deps.js';

/**
 * Writes the changes no stack's resources matched to the store, one batch at a time. A burst (a console
 * deploy of a large change set: thousands of events a minute) never holds more than the newest
 * `limits.changes` in memory; the older ones of the burst are counted, not kept, as the store would prune
 * them anyway.
 */
export interface UnmatchedChangeRecorder {
  add(change: UnmatchedChange): void;
  /** Resolves when everything added so far is written (or was given up on, logged). */
  flush(): Promise<void>;
}

export function createUnmatchedChangeRecorder(
  deps: Pick<ServiceDeps, 'logger' | 'now'> & {
    store: Pick<ServiceDeps['store'], 'recordUnmatchedChanges' | 'pruneUnmatchedChanges'>;
  },
  limits: Pick<typeof UNMATCHED_LIMITS, 'changes' | 'ageMs'> = UNMATCHED_LIMITS,
): UnmatchedChangeRecorder {
  let buffer: UnmatchedChange[] = [];
  let dropped = 0;
  let writing: Promise<void> | undefined;

  const writeBatch = async (changes: UnmatchedChange[], alsoCounted: number) => {
    try {
      await deps.store.recordUnmatchedChanges({ changes, dropped: alsoCounted });
      await deps.store.pruneUnmatchedChanges({
        before: new Date(deps.now().getTime() - limits.ageMs),
        keep: limits.changes,
      });
    } catch (err) {
      // Only the listing loses them: the metric counted each event already.
      deps.logger.warn(
        { err: errorMessage(err), changes: changes.length + alsoCounted },
        'change events: the unmatched changes were not stored',
      );
    }
  };

  const drain = async () => {
    while (buffer.length || dropped) {
      const batch = buffer;
      const alsoCounted = dropped;
      buffer = [];
      dropped = 0;
      await writeBatch(batch, alsoCounted);
    }
    writing = undefined;
  };

  return {
    add(change) {
      buffer.push(change);
      if (buffer.length > limits.changes) {
        buffer.shift();
        dropped += 1;
      }
      writing ??= drain();
    },
    async flush() {
      await writing;
    },
  };
}
