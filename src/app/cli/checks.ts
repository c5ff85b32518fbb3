import type { StackLock } from '../../domain/run/model.js';
import type { Stack } from '../../domain/stack.js';
import { errorMessage } from '../../domain/errors.js';
import type { CheckOutcome } from '../../services/check/check-stack.js';
import { checkStackFromSource } from '../../services/check/check-stack-from-source.js';
import { requestCheck } from '../../services/operator/request-check.js';
import { createScheduler, SchedulerStoppedError } from '../../services/runtime/scheduler.js';
import { waitForStackLock } from '../../services/runtime/stack-lock.js';
import type { AppContext } from '../context.js';

export type { CheckOutcome } from '../../services/check/check-stack.js';

/** A stack the CLI never started checking: Ctrl-C came while it waited its turn. */
export interface SkippedCheck {
  stack: string;
  status: 'skipped';
  reason: string;
}

/** What `driftgate check` reports for a stack. */
export type ReportedOutcome = CheckOutcome | SkippedCheck;

/** Told as the checks go, for a person watching (`driftgate check` says it on stderr). */
export interface CheckListener {
  started(stack: string): void;
  waiting(stack: string, holder: StackLock, timeoutMs: number): void;
  finished(outcome: ReportedOutcome, ms: number): void;
}

export interface RunChecksOptions {
  /**
   * Wait, up to the state lock timeout (terraform.timeouts.lock), for a stack another process holds
   * (another check, serve's schedule, an apply) instead of failing at once on its lock.
   */
  wait?: boolean;
  progress?: CheckListener;
  /** Who asked, for the audit's `check_requested` (`cli:<user>`). */
  actor: string;
  /** Called with the way to stop: Ctrl-C aborts the plans (terraform gets SIGINT). */
  onShutdown(stop: () => void): void;
}

/** `driftgate check` and the demo: checks stacks now, with the configured concurrency. */
export async function runChecks(
  context: AppContext,
  stacks: Stack[],
  options: RunChecksOptions,
): Promise<ReportedOutcome[]> {
  const { progress } = options;
  const deps = {
    ...context.deps,
    git: context.git,
  };
  const lockWait = context.config.terraform.timeouts.lock;
  const scheduler = createScheduler<CheckOutcome>({
    stacks,
    concurrency: context.config.defaults.concurrency,
    jitterMs: 0,
    logger: context.logger,
    check: async (stack, trigger, signal) => {
      const started = performance.now();
      progress?.started(stack.name);
      if (options.wait)
        await waitForStackLock(deps, stack.name, lockWait, signal, (holder) =>
          progress?.waiting(stack.name, holder, lockWait),
        );
      // Ctrl-C while it waited: it never started.
      if (signal.aborted) throw new SchedulerStoppedError(stack.name);
      const outcome = await checkStackFromSource(deps, stack, { trigger, signal });
      progress?.finished(outcome, performance.now() - started);
      return outcome;
    },
  });
  options.onShutdown(() => void scheduler.stop(0));
  const asking = { ...deps, scheduler };
  const queued: Promise<CheckOutcome>[] = [];
  for (const s of stacks) queued.push((await requestCheck(asking, s.name, options.actor)).outcome);
  const settled = await Promise.allSettled(queued);
  return settled.map((r, i): ReportedOutcome => {
    if (r.status === 'fulfilled') return r.value;
    const stack = stacks[i]!.name;
    if (r.reason instanceof SchedulerStoppedError)
      return { stack, status: 'skipped', reason: 'stopped before it started' };
    return { stack, status: 'errored', error: errorMessage(r.reason), stderrTail: '' };
  });
}
