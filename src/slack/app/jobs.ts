import { errorMessage } from '../../domain/errors.js';
import type { ServiceLogger } from '../../services/deps.js';

/**
 * Work a Slack handler hands off after `ack()`: it runs in the background, its failure is logged (never an
 * unhandled rejection that would end the process), and shutdown or a test can wait for all of it.
 */
export interface Jobs {
  run(name: string, work: () => Promise<unknown>): void;
  /** Resolves when no job is running, including jobs started by the jobs awaited. */
  idle(): Promise<void>;
}

export function createJobs(logger: Pick<ServiceLogger, 'error'>): Jobs {
  const running = new Set<Promise<unknown>>();
  return {
    run(name, work) {
      const job: Promise<unknown> = Promise.resolve()
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
