import type { Classification } from '../../domain/change-events/classify.js';
import { createCheckDebouncer, type DebounceTimer } from '../../domain/change-events/debounce.js';
import { type IntakeOutcome, type MatchedChange, takeChangeEvent } from '../../domain/change-events/intake.js';
import type { ResourceIndex } from '../../domain/change-events/resource-index.js';
import type { ChangeEvent } from '../../domain/change-events/schema.js';
import { errorMessage } from '../../domain/errors.js';
import type { RunStore } from '../../ports/store.js';
import type { ServiceDeps } from '../runtime/deps.js';

/**
 * The intake both receivers (push endpoint, SQS poller) feed: each event classified and matched against the resource index, its stacks'
 * windows debounced into one check each, and what the checks will answer stored first. A
 * window's first change is stored before the event is acknowledged; the rest when the window closes.
 */
export interface IntakeDeps extends Pick<ServiceDeps, 'logger' | 'now'> {
  store: Pick<RunStore, 'addPendingChanges' | 'listWaitingStacks' | 'listRuns'>;
}

export interface IntakeOptions {
  /** Events for one stack within this window make one check. */
  windowMs: number;
  index: ResourceIndex;
  classify: (event: ChangeEvent) => Classification;
  /** Queues an event-triggered check of the stack. */
  requestCheck(stack: string): Promise<unknown>;
  /** The config's stacks now: a stack since removed is not checked for changes it left waiting. */
  stacks(): ReadonlySet<string>;
  timer: DebounceTimer;
  /** Each event's outcome, for counters and logs. */
  counted(outcome: IntakeOutcome): void;
}

export interface ChangeEventIntake {
  /** Takes one event; rejects when its window's first change could not be stored (the receiver then fails it). */
  take(event: ChangeEvent): Promise<void>;
  /**
   * Stops asking for checks at once, waits for the receivers to hand over what they hold (`drainReceivers`), then
   * keeps every open window in the store for the stack's next check: a deploy loses no change.
   */
  stop(drainReceivers: () => Promise<void>): Promise<void>;
}

export function startChangeEventIntake(deps: IntakeDeps, options: IntakeOptions): ChangeEventIntake {
  const { logger, store } = deps;
  let stopped = false;
  const waiting = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    waiting.add(work);
    void work.finally(() => waiting.delete(work));
  };
  const requestCheck = (stack: string) =>
    options
      .requestCheck(stack)
      .catch((err: unknown) =>
        logger.warn({ stack, err: errorMessage(err) }, 'change events: the check was not queued'),
      );
  /** The change of each open window already in the store (`storeOpening`): stack -> event id. */
  const storedAtOpen = new Map<string, string>();
  const debouncer = createCheckDebouncer<MatchedChange>({
    timer: options.timer,
    windowMs: options.windowMs,
    onDue: (request) => {
      logger.info(
        { stack: request.stack, resources: request.resources, events: request.coalesced + 1 },
        'change events: checking the stack',
      );
      // Kept before the check is queued, so whichever process runs it finds them. Stopping waits for the
      // write, not for the check (the runners stop those within the shutdown timeout). The window's first
      // change is there already, unless a check answered it meanwhile: it is not stored for a second one.
      const stored = storedAtOpen.get(request.stack);
      storedAtOpen.delete(request.stack);
      const changes = request.changes.filter((c) => c.eventId !== stored);
      const keep = store
        .addPendingChanges(request.stack, changes)
        .catch((err: unknown) =>
          logger.warn(
            { stack: request.stack, err: errorMessage(err) },
            'change events: the changes were not stored; the check goes ahead without who',
          ),
        );
      track(keep);
      // Stopped meanwhile: the stored changes wait for the stack's next check.
      void keep.then(() => (stopped ? undefined : requestCheck(request.stack)));
    },
  });

  // Each open window has a change in the store before its events are acknowledged (202, the SQS message
  // deleted): its first, or, when that write failed, the next one taken. A process killed within the
  // window leaves it there, and a later start checks its stack (`checkStranded`). The rest of a window is
  // stored when it closes: one write per window, not per event. A write that fails fails the event: the
  // push endpoint answers 503 and SQS hands the message out again, so EventBridge or SQS sends it again.
  const storeOpening = async (stack: string, change: MatchedChange) => {
    await store.addPendingChanges(stack, [change]).catch((err: unknown) => {
      logger.warn({ stack, err: errorMessage(err) }, 'change events: a window was not stored at its opening');
      throw err;
    });
    if (debouncer.pendingStacks().includes(stack)) storedAtOpen.set(stack, change.eventId);
  };

  // Changes stored before this start that still wait a window later: the process that took them died
  // before its check (or the check failed). Each such stack is checked once now.
  const startedAt = deps.now();
  const checkStranded = async () => {
    const stacks = await store.listWaitingStacks(startedAt).catch((err: unknown) => {
      logger.warn(
        { err: errorMessage(err) },
        'change events: the changes waiting since before this start were not read',
      );
      return [];
    });
    for (const stack of stacks) {
      if (stopped || !options.stacks().has(stack)) continue;
      // Checked since by any process (a replica that started too, a schedule): not stranded.
      const [latest] = await store.listRuns({ stack, limit: 1 }).catch(() => []);
      if (latest && latest.createdAt >= startedAt) continue;
      logger.info({ stack }, 'change events: checking a stack whose changes have waited since before this start');
      void requestCheck(stack);
    }
  };
  // Replicas started together look at different times, so that one's check is seen by the others.
  const strandedAfter = options.windowMs + Math.floor(Math.random() * (options.windowMs / 2));
  const stranded = options.timer.setTimeout(() => track(checkStranded()), strandedAfter);

  return {
    async take(event) {
      const outcome = takeChangeEvent({ classify: options.classify, index: options.index, debouncer }, event);
      options.counted(outcome);
      if (outcome.kind !== 'queued') return;
      const unstored = outcome.stacks.filter((s) => s.result !== 'over_capacity' && !storedAtOpen.has(s.stack));
      await Promise.all(unstored.map(({ stack }) => storeOpening(stack, outcome.change)));
    },
    async stop(drainReceivers) {
      if (stopped) return;
      stopped = true;
      await drainReceivers();
      options.timer.clearTimeout(stranded);
      debouncer.flush();
      debouncer.stop();
      storedAtOpen.clear();
      await Promise.allSettled([...waiting]);
    },
  };
}
