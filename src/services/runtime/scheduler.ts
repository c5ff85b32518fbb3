import nodeCron from 'node-cron';
import type { Stack } from '../../domain/stack.js';
import { DriftgateError } from '../../domain/errors.js';
import type { RunTrigger } from '../../domain/run/state.js';
import type { Logger } from '../../ports/logger.js';

export interface CronLike {
  schedule(expression: string, task: () => void): { stop(): void | Promise<void> };
}

export interface SchedulerOptions<T> {
  stacks: Stack[];
  concurrency: number;
  jitterMs: number;
  /** Runs one check; the signal aborts it at shutdown (terraform gets SIGINT). */
  check: (stack: Stack, trigger: RunTrigger, signal: AbortSignal) => Promise<T>;
  logger: Logger;
  cron?: CronLike;
  random?: () => number;
  /** Whether scheduled ticks start checks here (the leader of several `serve`s); default always. */
  active?: () => boolean;
}

export interface Scheduler<T> {
  /** Registers every stack's cron schedule. */
  start(): void;
  /**
   * The stacks found again (serve's re-discovery): new ones are scheduled, gone ones no longer are (their
   * queued scheduled check is dropped; one running finishes). Stacks kept keep their schedule.
   */
  replaceStacks(stacks: readonly Stack[]): Promise<void>;
  /** Queues a check ahead of scheduled ones. A stack already queued is not queued twice. */
  request(stackName: string, trigger?: RunTrigger): Promise<T>;
  /**
   * Queues other work on a stack (an apply and its verification plan) ahead of scheduled checks. It counts
   * against `concurrency` and never runs beside a check or other work on the same stack.
   */
  exclusive<U>(stackName: string, work: (signal: AbortSignal) => Promise<U>): Promise<U>;
  /** Stops scheduling, waits up to `timeoutMs` for running checks, then aborts the rest. */
  stop(timeoutMs: number): Promise<{ aborted: string[]; cancelled: string[] }>;
  status(): { running: string[]; queued: string[] };
}

interface Job {
  stack: Stack;
  /** undefined for exclusive work, which is never merged with another job. */
  trigger?: RunTrigger;
  run: (job: Job, signal: AbortSignal) => Promise<unknown>;
  settle: { resolve(value: unknown): void; reject(err: unknown): void };
  promise: Promise<unknown>;
}

export class SchedulerStoppedError extends DriftgateError {
  constructor(readonly stackName: string) {
    super('SHUTTING_DOWN', `check of ${stackName} was not started: driftgate is shutting down`);
  }
}

export const defaultCron: CronLike = { schedule: (expression, task) => nodeCron.schedule(expression, task) };

/**
 * Runs checks on cron schedules with jitter, at most `concurrency` at once, never two on one stack, and
 * never a scheduled check of a stack that is already queued or running (no pile-up when plans are slow).
 */
export function createScheduler<T>(options: SchedulerOptions<T>): Scheduler<T> {
  const { logger, concurrency } = options;
  const byName = new Map(options.stacks.map((s) => [s.name, s]));
  const random = options.random ?? Math.random;
  const queue: Job[] = [];
  const running = new Map<string, { job: Job; controller: AbortController; done: Promise<unknown> }>();
  /** Each stack's cron task, once started. */
  const tasks = new Map<string, { stop(): void | Promise<void> }>();
  let started = false;
  const schedule = (stack: Stack) =>
    tasks.set(
      stack.name,
      (options.cron ?? defaultCron).schedule(stack.schedule, () => onTick(stack)),
    );
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;

  function enqueue(stack: Stack, trigger: RunTrigger, front: boolean): Promise<T> {
    const queued = queue.find((j) => j.stack.name === stack.name && j.trigger !== undefined);
    if (queued) {
      if (front && queued.trigger === 'schedule') {
        queue.splice(queue.indexOf(queued), 1);
        queued.trigger = trigger;
        queue.splice(firstScheduled(), 0, queued);
      }
      return queued.promise as Promise<T>;
    }
    // The trigger is read when the check starts: a queued scheduled check may have been promoted meanwhile.
    return add(stack, trigger, (job, signal) => options.check(job.stack, job.trigger!, signal), front) as Promise<T>;
  }

  function add(stack: Stack, trigger: RunTrigger | undefined, run: Job['run'], front: boolean): Promise<unknown> {
    let settle!: Job['settle'];
    const promise = new Promise<unknown>((resolve, reject) => (settle = { resolve, reject }));
    const job: Job = { stack, trigger, run, settle, promise };
    if (front) queue.splice(firstScheduled(), 0, job);
    else queue.push(job);
    dispatch();
    return promise;
  }

  /** On-demand checks go before scheduled ones, in the order they were asked for. */
  function firstScheduled(): number {
    const index = queue.findIndex((j) => j.trigger === 'schedule');
    return index < 0 ? queue.length : index;
  }

  function dispatch(): void {
    while (!stopped && running.size < concurrency) {
      const index = queue.findIndex((j) => !running.has(j.stack.name));
      if (index < 0) return;
      const [job] = queue.splice(index, 1) as [Job];
      const controller = new AbortController();
      const done = Promise.resolve()
        .then(() => job.run(job, controller.signal))
        .then(job.settle.resolve, job.settle.reject)
        .finally(() => {
          running.delete(job.stack.name);
          dispatch();
        });
      running.set(job.stack.name, { job, controller, done });
    }
  }

  function onTick(stack: Stack): void {
    if (stopped || !(options.active?.() ?? true)) return;
    if (running.has(stack.name) || queue.some((j) => j.stack.name === stack.name && j.trigger !== undefined)) {
      logger.info({ stack: stack.name }, 'scheduled check skipped: the previous one is still queued or running');
      return;
    }
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        if (!stopped) enqueue(stack, 'schedule', false).catch(() => undefined);
      },
      Math.floor(random() * options.jitterMs),
    );
    timers.add(timer);
  }

  return {
    start() {
      started = true;
      for (const stack of byName.values()) schedule(stack);
    },
    async replaceStacks(stacks) {
      const next = new Set(stacks.map((s) => s.name));
      for (const name of [...byName.keys()].filter((n) => !next.has(n))) {
        byName.delete(name);
        await tasks.get(name)?.stop();
        tasks.delete(name);
        const queued = queue.findIndex((j) => j.stack.name === name && j.trigger === 'schedule');
        if (queued >= 0) queue.splice(queued, 1)[0]!.settle.reject(new Error(`${name} is no longer found by discover`));
      }
      for (const stack of stacks) {
        if (byName.has(stack.name)) continue;
        byName.set(stack.name, stack);
        if (started && !stopped) schedule(stack);
      }
    },
    request(stackName, trigger = 'manual') {
      const stack = byName.get(stackName);
      if (!stack) return Promise.reject(new Error(`unknown stack ${stackName}`));
      if (stopped) return Promise.reject(new SchedulerStoppedError(stackName));
      return enqueue(stack, trigger, true);
    },
    exclusive(stackName, work) {
      const stack = byName.get(stackName);
      if (!stack) return Promise.reject(new Error(`unknown stack ${stackName}`));
      if (stopped) return Promise.reject(new SchedulerStoppedError(stackName));
      return add(stack, undefined, (_job, signal) => work(signal), true) as Promise<Awaited<ReturnType<typeof work>>>;
    },
    async stop(timeoutMs) {
      stopped = true;
      await Promise.all([...tasks.values()].map((t) => t.stop()));
      for (const timer of timers) clearTimeout(timer);
      const cancelled = queue.splice(0).map((job) => {
        job.settle.reject(new SchedulerStoppedError(job.stack.name));
        return job.stack.name;
      });
      const all = () => Promise.all([...running.values()].map((r) => r.done));
      let timeout: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        all().then(() => false),
        new Promise<boolean>((resolve) => (timeout = setTimeout(() => resolve(true), timeoutMs))),
      ]);
      clearTimeout(timeout);
      const aborted = timedOut ? [...running.keys()] : [];
      for (const r of running.values()) r.controller.abort();
      await all();
      return { aborted, cancelled };
    },
    status: () => ({ running: [...running.keys()], queued: queue.map((j) => j.stack.name) }),
  };
}
