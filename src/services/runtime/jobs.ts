import { errorMessage } from '../../domain/errors.js';
import type { Logger } from '../../ports/logger.js';

/**
 * Work done in the background: what a Slack handler hands off after `ack()`, an automatic apply started
 * by a check. Its failure is logged (never an unhandled rejection that would end the process), and
 * shutdown or a test can wait for all of it.
 *
 * Acks come first. Jobs start one per turn of the event loop, after the I/O that is waiting, and while
 * Slack requests keep arriving (`busy`) they wait, for at most `maxDelayMs`: in a burst of clicks every
 * request is acked before the work the earlier clicks started takes the event loop.
 */
export interface Jobs {
  run(name: string, work: () => Promise<unknown>): void;
  /** Resolves when no job is running, including jobs started by the jobs awaited. */
  idle(): Promise<void>;
}

export interface JobsOptions {
  logger: Pick<Logger, 'error'>;
  /** True while requests are arriving (one came in the last few ms). */
  busy?: () => boolean;
  maxDelayMs?: number;
}

export function createJobs(options: JobsOptions): Jobs {
  const { logger } = options;
  const busy = options.busy ?? (() => false);
  const maxDelayMs = options.maxDelayMs ?? 250;
  const running = new Set<Promise<unknown>>();
  const waiting: { start: () => void; since: number }[] = [];

  function startNext(): void {
    const next = waiting[0];
    if (!next) return;
    if (busy() && performance.now() - next.since < maxDelayMs) {
      setTimeout(startNext, 1);
      return;
    }
    waiting.shift();
    next.start();
    if (waiting.length > 0) setImmediate(startNext);
  }

  return {
    run(name, work) {
      const turn = new Promise<void>((resolve) => {
        waiting.push({ start: resolve, since: performance.now() });
        if (waiting.length === 1) setImmediate(startNext);
      });
      const job: Promise<unknown> = turn
        .then(work)
        .catch((err: unknown) => logger.error({ err: errorMessage(err), job: name }, 'background job failed'))
        .finally(() => running.delete(job));
      running.add(job);
    },
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
