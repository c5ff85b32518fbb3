import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '../domain/events.js';
import { codifyOnWorker } from '../services/codify-on-worker.js';
import type { Codify } from '../services/codify-drift.js';
import type { Run } from '../domain/run/model.js';
import type { RunTrigger } from '../domain/run/state.js';
import { openWorkerRegistry } from '../adapters/store/open-store.js';
import { configuredPools } from '../domain/pool/configured-pools.js';
import type { JobQueue } from '../ports/job-queue.js';
import { createPoolStatus, type PoolStatus } from '../services/pool-status.js';
import type { ApplyDeps } from '../services/apply-approved-run.js';
import { autoApplyAfterCheck } from '../services/auto-apply.js';
import type { CheckOutcome } from '../services/check-stack.js';
import { createCheckDispatcher } from '../services/dispatch-checks.js';
import type { Jobs } from '../services/jobs.js';
import { rebuildEvent } from '../services/rebuild-event.js';
import { replayAnnouncements } from '../services/replay-announcements.js';
import { reportInterruptedApplies } from '../services/report-interrupted-applies.js';
import type { Scheduler } from '../services/scheduler.js';
import type { AppContext } from './context.js';
import { openQueueFor } from './open-queue.js';
import { watchUnservedPools } from './unserved-pools-watch.js';

/** How a serve gets terraform run: in this process, or by the workers of each stack's pool. */
export interface Runners {
  scheduler: Scheduler<CheckOutcome>;
  apply(run: Run, actor: string): Promise<unknown>;
  requestCheck(stack: string): void;
  /** Queues a check whose outcome nobody waits for (a change event's): resolves once it is queued. */
  queueCheck(stack: string, trigger: RunTrigger): Promise<unknown>;
  /** Each pool's live workers and queue, with workers. */
  pools?: PoolStatus;
  /** Where a remediation's code is written and checked, with workers. */
  codify?: Codify;
  stop(): Promise<void>;
}

export interface WorkerRunnersOptions {
  context: AppContext;
  jobs: Jobs;
  leading: () => boolean;
  /** Counts a check's outcome as workers report them. */
  countOutcome: (state: string) => void;
  /** How often the leader looks for runs of workers that died, and outcomes they left; default 30 s. */
  recoverEveryMs?: number;
  /** How often the leader looks for pools whose work waits with no live worker; default 10 s. */
  poolWatchMs?: number;
}

const CHECK_EVENTS = new Set<DomainEvent['type']>(['drift_detected', 'plan_pending_approval', 'plan_refreshed']);
const OUTCOME_EVENTS = new Set<DomainEvent['type']>([...CHECK_EVENTS, 'no_changes', 'drift_resolved', 'plan_failed']);

/**
 * The control plane's side of `runners: workers`: checks and applies become jobs on the stack's pool, and
 * what workers relay (outcomes, apply results) is published here, where Slack, GitHub and on-call listen.
 * Any replica takes relayed events and abandoned applies; the leader queues the schedule's checks and
 * looks for what a dead worker left: its runs `interrupted` (an apply's stack blocked), its announcements.
 */
export async function startWorkerRunners(options: WorkerRunnersOptions): Promise<Runners> {
  const queue = await openQueueFor(options.context.config, options.context.logger, 'driftgate-serve');
  try {
    return await runnersOn(queue, options);
  } catch (err) {
    // Its open connections would keep a serve that failed to start alive.
    await queue.stop(0).catch(() => undefined);
    throw err;
  }
}

async function runnersOn(queue: JobQueue, options: WorkerRunnersOptions): Promise<Runners> {
  const { context, jobs, leading } = options;
  const { config, deps, store, logger } = context;
  const scheduler = createCheckDispatcher({
    ...deps,
    stacks: config.stacks,
    queue,
    active: leading,
    // The plan, a wait for the stack's lock, and a worker's turn.
    waitLimitMs: 2 * config.terraform.timeouts.plan + 10 * 60_000,
  });
  const requestCheck = (name: string): void => void scheduler.request(name, 'manual').catch(() => undefined);
  const apply = async (run: Run, actor: string): Promise<void> => {
    const stack = context.stack(run.stack);
    if (!stack) return;
    await deps.bus.publish({ type: 'apply_queued', stack: stack.name, run, actor });
    const queued = await queue.enqueue(stack.pool, { kind: 'apply', stack: stack.name, runId: run.id, actor });
    // The run stays approved: the next recovery (a restart, a new leader) queues it again.
    if (!queued.queued)
      logger.warn({ runId: run.id, stack: stack.name }, 'an apply of this stack is already queued; this one waits');
  };
  const applies: Omit<ApplyDeps, 'exclusive'> = { ...deps, requestCheck, stack: context.stack };

  await queue.workRelayed(async (relayed) => {
    const event = await rebuildEvent(deps, relayed);
    if (!event) {
      logger.error(
        { runId: relayed.runId, stack: relayed.stack, event: relayed.type },
        'relayed outcome has no stored analysis; dropped',
      );
      return;
    }
    await deps.bus.publish(event);
    if (OUTCOME_EVENTS.has(event.type)) options.countOutcome(event.run.state);
    if (CHECK_EVENTS.has(event.type) && 'analysis' in event) {
      const state = event.run.state;
      if (state !== 'drifted' && state !== 'pending_approval') return;
      const outcome: CheckOutcome = {
        stack: event.stack,
        status: state,
        run: event.run,
        analysis: event.analysis,
        isNew: event.type !== 'plan_refreshed',
        ...(event.policy ? { policy: event.policy } : {}),
      };
      jobs.run('auto-apply', () => autoApplyAfterCheck(applies, outcome, apply));
    }
  });

  /** Runs of workers that are gone: interrupted (an apply blocks its stack, and says so), outcomes told. */
  const recoverWorkers = async (): Promise<void> => {
    // While this control plane runs: what it works on itself is live.
    const interrupted = await store.recoverInterrupted({ ownRunsLive: true });
    for (const run of interrupted)
      logger.warn({ runId: run.id, stack: run.stack, error: run.error }, 'run interrupted: its worker stopped');
    await reportInterruptedApplies(deps, interrupted);
    await replayAnnouncements(deps);
  };
  await queue.workAbandonedApplies(async (job) => {
    await recoverWorkers();
    const run = await store.getRun(job.runId);
    if (run?.state === 'approved') {
      // Its worker stopped before the apply began: nothing changed, and a person approves a fresh plan.
      const reason = 'its worker stopped before the apply began; nothing was applied';
      const ended = await store.transition(run.id, 'approved', 'errored', { error: `apply did not start: ${reason}` });
      if (!ended) return;
      await store.appendAudit({
        at: deps.now(),
        actor: job.actor,
        action: 'apply_not_started',
        runId: run.id,
        stack: run.stack,
        detail: { reason },
      });
      await deps.bus.publish({
        type: 'apply_not_started',
        stack: run.stack,
        run: ended,
        actor: job.actor,
        reason,
        blocked: false,
      });
    } else if (run?.state === 'applying')
      // A worker on another host: its stack lock's TTL says when it counts as gone (the periodic recovery).
      logger.warn(
        { runId: run.id, stack: run.stack },
        'apply abandoned by its worker; interrupted once its lock runs out',
      );
  });
  const recovery = setInterval(() => {
    if (!leading()) return;
    jobs.run('recover-workers', recoverWorkers);
  }, options.recoverEveryMs ?? 30_000);
  recovery.unref();

  const registry = await openWorkerRegistry(config);
  const runners = config.runners?.type === 'workers' ? config.runners : undefined;
  const pools = createPoolStatus({
    registry,
    queue,
    pools: configuredPools(config.stacks),
    now: deps.now,
    staleAfterMs: runners?.workerStaleAfter ?? 30_000,
  });
  const poolWatch = watchUnservedPools(context, pools, leading, options.poolWatchMs);

  return {
    scheduler,
    apply,
    requestCheck,
    queueCheck: (name, trigger) => scheduler.queue(name, trigger),
    pools,
    codify: codifyOnWorker({
      ...deps,
      queue,
      newId: randomUUID,
      timeoutMs: 2 * config.terraform.timeouts.plan + 10 * 60_000,
    }),
    async stop() {
      clearInterval(recovery);
      poolWatch.stop();
      await queue.stop(config.defaults.shutdownTimeout);
      await registry.close();
    },
  };
}
