import { errorMessage } from '../../domain/errors.js';
import type { ServiceLogger } from '../../services/deps.js';

/**
 * Work a Slack handler hands off after `ack()`: it runs in the background, its failure is logged (never an
 * unhandled rejection that would end the process), and shutdown or a test can wait for all of it.
 *
 * Jobs start one per turn of the event loop, after the I/O that is waiting: in a burst of clicks every
 * request already received is parsed and acked before the next job starts, so Slack's 3-second ack never
 * waits behind the work the earlier clicks started.
 */
export interface Jobs {
  run(name: string, work: () => Promise<unknown>): void;
  /** Resolves when no job is running, including jobs started by the jobs awaited. */
  idle(): Promise<void>;
}

export function createJobs(logger: Pick<ServiceLogger, 'error'>): Jobs {
  const running = new Set<Promise<unknown>>();
  const waiting: (() => void)[] = [];

  function startNext(): void {
    waiting.shift()?.();
    if (waiting.length > 0) setImmediate(startNext);
  }

  return {
    run(name, work) {
      const turn = new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (waiting.length === 1) setImmediate(startNext);
      });
      const job: Promise<unknown> = turn
        .then(work)
        .catch((err: unknown) => logger.error({ err: errorMessage(err), job: name }, 'slack job failed'))
        .finally(() => running.delete(job));
      running.add(job);
    },
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
