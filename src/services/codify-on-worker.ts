import { setTimeout as sleep } from 'node:timers/promises';
import type { Stack } from '../domain/stack.js';
import { RemediationUnavailableError } from '../domain/errors.js';
import type { Run } from '../domain/run/model.js';
import type { JobQueue } from '../ports/job-queue.js';
import { readCodifyAnswer } from './codify-answer.js';
import type { ServiceDeps } from './deps.js';
import type { Codify } from './codify-drift.js';

export interface CodifyOnWorkerOptions extends Pick<ServiceDeps, 'artifacts' | 'store'> {
  queue: Pick<JobQueue, 'enqueue'>;
  newId: () => string;
  /** How long to wait for a worker's answer: its turn, the checkout, terraform's checks. */
  timeoutMs: number;
  pollMs?: number;
}

/**
 * The control plane's codify: a job on the stack's pool (a worker holds the pool's credentials, which the
 * provider schema and `validate` may need), answered through the run's `remediation` artifact.
 */
export function codifyOnWorker(options: CodifyOnWorkerOptions): Codify {
  return async (stack: Stack, run: Run, request) => {
    const requestId = options.newId();
    const queued = await options.queue.enqueue(stack.pool, {
      kind: 'codify',
      stack: stack.name,
      runId: run.id,
      requestId,
      requestedBy: request.requestedBy,
      ...(request.threadUrl ? { threadUrl: request.threadUrl } : {}),
    });
    if (!queued.queued)
      throw new RemediationUnavailableError(
        `a remediation of ${stack.name} is already being written by a worker: its PR link follows in the thread`,
      );
    const until = Date.now() + options.timeoutMs;
    while (Date.now() < until && !request.signal?.aborted) {
      const answer = await readCodifyAnswer(options, run.id, requestId, stack.pool);
      if (answer?.status === 'failed') throw new RemediationUnavailableError(answer.error);
      if (answer) return answer;
      await sleep(options.pollMs ?? 1000);
    }
    throw new RemediationUnavailableError(
      `no worker of pool ${stack.pool} wrote the remediation of ${stack.name} within ${Math.round(options.timeoutMs / 60_000)} min (driftgate workers lists them)`,
    );
  };
}
