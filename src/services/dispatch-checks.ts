import { setTimeout as sleep } from 'node:timers/promises';
import type { Stack } from '../domain/stack.js';
import { DriftgateError } from '../domain/errors.js';
import { noChangesAnalysis } from '../domain/plan/analyze.js';
import type { Run } from '../domain/run/model.js';
import type { RunTrigger } from '../domain/run/state.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { CheckOutcome } from './check-stack.js';
import type { ServiceDeps } from './deps.js';
import { type CronLike, defaultCron, type Scheduler, SchedulerStoppedError } from './scheduler.js';
import { loadAnalysis, loadPolicy } from './stored-analysis.js';

export interface DispatcherOptions extends Pick<ServiceDeps, 'store' | 'artifacts' | 'logger' | 'now'> {
  stacks: Stack[];
  queue: Pick<JobQueue, 'enqueue'>;
  /** Whether scheduled ticks queue checks here (the leader of the control plane's replicas). */
  active: () => boolean;
  /** How long `request` waits for a worker's result before saying none came. */
  waitLimitMs: number;
  /** How often a waiting `request` looks in the store for its result; default 1 s. */
  pollMs?: number;
  cron?: CronLike;
}

/**
 * A check's run has ended once it left `planning`, whatever it became since (approved and applied by an
 * automatic mode, superseded) before a look at the store saw it.
 */
const ended = (run: Run): boolean => run.state !== 'planning';

export class NoWorkerResultError extends DriftgateError {
  constructor(stack: Stack, waitedMs: number) {
    super(
      'NO_WORKER_RESULT',
      `no result for ${stack.name} after ${Math.round(waitedMs / 60_000)} min: its check waits for a worker of pool ${stack.pool} (driftgate workers lists them)`,
    );
  }
}

export interface CheckDispatcher extends Scheduler<CheckOutcome> {
  /**
   * Queues a check of the stack on its pool and resolves once it is queued, for a caller that does not
   * wait for the outcome (a change event): nothing polls the store for it. A blocked stack's check is
   * queued too: the worker's check says it is blocked.
   */
  queue(stackName: string, trigger: RunTrigger): Promise<void>;
}

/**
 * The scheduler of a control plane whose terraform runs on workers: the leader's cron ticks queue a check
 * on the stack's pool (the queue keeps a stack from being queued twice), an asked-for check is queued ahead
 * of scheduled ones, and its caller gets the outcome the worker recorded in the store (`request`) or only
 * its place in the queue (`queue`). Work beside a check (`exclusive`, a remediation) runs at once: its
 * terraform part is a worker's job.
 */
export function createCheckDispatcher(options: DispatcherOptions): CheckDispatcher {
  const { store, logger } = options;
  const byName = new Map(options.stacks.map((s) => [s.name, s]));
  const tasks: { stop(): void | Promise<void> }[] = [];
  const waiting = new Map<string, number>();
  const stopping = new AbortController();

  /** The stack a caller asked for, while the dispatcher takes requests. */
  function asked(stackName: string): Stack {
    const stack = byName.get(stackName);
    if (!stack) throw new Error(`unknown stack ${stackName}`);
    if (stopping.signal.aborted) throw new SchedulerStoppedError(stackName);
    return stack;
  }

  async function enqueue(stack: Stack, trigger: RunTrigger): Promise<void> {
    const queued = await options.queue.enqueue(stack.pool, { kind: 'check', stack: stack.name, trigger });
    if (!queued.queued) logger.info({ stack: stack.name, trigger }, 'check not queued: one is already waiting');
  }

  /** What the check found, from its run: a run with changes may have moved on (approved, applied) since. */
  async function outcomeOf(run: Run): Promise<CheckOutcome> {
    if (run.state === 'no_changes')
      return { stack: run.stack, status: 'no_changes', run, analysis: noChangesAnalysis(''), resolved: false };
    if (run.state === 'interrupted') return { stack: run.stack, status: 'interrupted', run };
    if (run.state === 'errored' || !run.kind)
      return { stack: run.stack, status: 'errored', run, error: run.error ?? `run is ${run.state}`, stderrTail: '' };
    const analysis = await loadAnalysis(options, run.id);
    if (!analysis)
      return { stack: run.stack, status: 'errored', run, error: 'the plan has no stored analysis', stderrTail: '' };
    const policy = await loadPolicy(options, run.id);
    const status = run.kind === 'drift' ? 'drifted' : 'pending_approval';
    return { stack: run.stack, status, run, analysis, isNew: true, ...(policy ? { policy } : {}) };
  }

  /** The first check of `stack` to end that had not ended when it was asked for. */
  async function result(stack: Stack, endedBefore: Set<string>): Promise<CheckOutcome> {
    const started = performance.now();
    while (!stopping.signal.aborted) {
      const runs = await store.listRuns({ stack: stack.name, limit: 10 });
      const done = runs.findLast((r) => !endedBefore.has(r.id) && ended(r));
      if (done) return outcomeOf(done);
      if (performance.now() - started > options.waitLimitMs)
        throw new NoWorkerResultError(stack, performance.now() - started);
      await sleep(options.pollMs ?? 1000, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
    throw new SchedulerStoppedError(stack.name);
  }

  return {
    start() {
      const cron = options.cron ?? defaultCron;
      for (const stack of options.stacks)
        tasks.push(
          cron.schedule(stack.schedule, () => {
            if (stopping.signal.aborted || !options.active()) return;
            enqueue(stack, 'schedule').catch((err: unknown) =>
              logger.error({ err, stack: stack.name }, 'queuing a scheduled check failed'),
            );
          }),
        );
    },
    async request(stackName, trigger = 'manual') {
      const stack = asked(stackName);
      const blocked = (await store.getStack(stackName))?.blockedReason;
      if (blocked) return { stack: stackName, status: 'blocked', reason: blocked };
      const endedBefore = new Set(
        (await store.listRuns({ stack: stackName, limit: 10 })).filter(ended).map((r) => r.id),
      );
      await enqueue(stack, trigger);
      waiting.set(stackName, (waiting.get(stackName) ?? 0) + 1);
      try {
        return await result(stack, endedBefore);
      } finally {
        const left = (waiting.get(stackName) ?? 1) - 1;
        if (left > 0) waiting.set(stackName, left);
        else waiting.delete(stackName);
      }
    },
    async queue(stackName, trigger) {
      await enqueue(asked(stackName), trigger);
    },
    // The terraform part of such work runs as a job on a worker, which waits for the stack's lock there.
    exclusive: (_stackName, work) => work(stopping.signal),
    async stop() {
      stopping.abort();
      await Promise.all(tasks.map((t) => t.stop()));
      return { aborted: [], cancelled: [...waiting.keys()] };
    },
    status: () => ({ running: [], queued: [...waiting.keys()] }),
  };
}
