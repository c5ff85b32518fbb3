import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { Stack } from '../domain/stack.js';
import { RemediationUnavailableError } from '../domain/errors.js';
import type { RemediationPlan, RemediationSkip } from '../domain/remediation/plan-remediation.js';
import type { Run } from '../domain/run/model.js';
import type { JobQueue } from '../ports/job-queue.js';
import { storeArtifact } from './artifacts.js';
import type { ServiceDeps } from './deps.js';
import type { Codified, Codify } from './open-remediation-pr.js';
import { loadJson } from './stored-analysis.js';

const Skip = z.object({
  address: z.string(),
  attribute: z.string().optional(),
  code: z.string(),
  reason: z.string(),
  guidance: z.string(),
});

/**
 * What a worker leaves for the control plane: the rewritten files and the PR's text, nothing to codify, or
 * why it failed. Stored as the run's `remediation` artifact; `requestId` says which request it answers.
 */
const StoredCodified = z.object({
  requestId: z.string(),
  result: z.discriminatedUnion('status', [
    z.object({
      status: z.literal('codified'),
      plan: z.object({
        edits: z.array(z.looseObject({ file: z.string(), address: z.string() })),
        skipped: z.array(Skip),
        files: z.array(z.object({ path: z.string(), text: z.string() })),
      }),
      text: z.object({ title: z.string(), body: z.string(), commitMessage: z.string() }),
    }),
    z.object({ status: z.literal('nothing_to_codify'), skipped: z.array(Skip) }),
    z.object({ status: z.literal('failed'), error: z.string() }),
  ]),
});

/** On the worker: the answer to a codify job, for whichever replica waits for it. */
export async function storeCodified(
  deps: Pick<ServiceDeps, 'artifacts' | 'store'>,
  runId: string,
  requestId: string,
  result: Codified | { status: 'failed'; error: string },
): Promise<void> {
  await storeArtifact(deps, runId, 'remediation', JSON.stringify({ requestId, result }));
}

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
      const stored = await loadJson(options, run.id, 'remediation', StoredCodified).catch(() => undefined);
      if (stored?.requestId === requestId) {
        const { result } = stored;
        if (result.status === 'failed') throw new RemediationUnavailableError(result.error);
        if (result.status === 'nothing_to_codify')
          return { status: 'nothing_to_codify', skipped: result.skipped as RemediationSkip[] };
        // Checked for what the PR and its record are made of; the edits' values are the worker's own output.
        return { status: 'codified', plan: result.plan as unknown as RemediationPlan, text: result.text };
      }
      await sleep(options.pollMs ?? 1000);
    }
    throw new RemediationUnavailableError(
      `no worker of pool ${stack.pool} wrote the remediation of ${stack.name} within ${Math.round(options.timeoutMs / 60_000)} min (driftgate workers lists them)`,
    );
  };
}
