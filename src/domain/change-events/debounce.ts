import type { ResourceRef } from './resource-index.js';

/**
 * Turns a stream of matched change events into check requests: the events for one stack within the
 * window (default 2 min, so a console session's several clicks make one check) make one request. The
 * window opens at a stack's first event and is not pushed back by later ones, so a steady stream still
 * gets its stack checked once per window. Memory is bounded: at most `maxPendingStacks` stacks wait,
 * and each keeps its latest `maxChangesPerStack` changes; what is over either cap is counted, not queued.
 */

/** The timer the debouncer runs on: the real one in serve, a hand-driven one in tests. */
export interface DebounceTimer {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface CheckRequest<C> {
  stack: string;
  /** The resources the events named, each once. */
  resources: string[];
  /** The changes, oldest first: the latest `maxChangesPerStack`. */
  changes: C[];
  /** Events folded into this request beyond the first. */
  coalesced: number;
  /** Earlier changes let go to keep the latest `maxChangesPerStack`. */
  changesDropped: number;
}

export interface DebounceOptions<C> {
  timer: DebounceTimer;
  onDue: (request: CheckRequest<C>) => void;
  windowMs?: number;
  maxPendingStacks?: number;
  maxChangesPerStack?: number;
}

export interface ChangeEventCounters {
  /** Events that made a new check request. */
  scheduled: number;
  /** Events folded into a request already waiting. */
  coalesced: number;
  /** Events for a stack that could not wait because `maxPendingStacks` stacks already did. */
  overCapacity: number;
  /** Events ignored by classification, by reason (`read_only`, `own_apply`, `automation:<rule>`). */
  ignored: Record<string, number>;
  /** Relevant events that matched no indexed resource. */
  unmatched: number;
}

export const DEFAULT_DEBOUNCE_MS = 120_000;

interface Pending<C> {
  request: CheckRequest<C>;
  resources: Set<string>;
  handle: unknown;
}

export interface CheckDebouncer<C> {
  /** One event's matches; returns what became of each stack it named. */
  offer(matches: readonly ResourceRef[], change: C): ('scheduled' | 'coalesced' | 'over_capacity')[];
  countIgnored(reason: string): void;
  countUnmatched(): void;
  counters(): ChangeEventCounters;
  pendingStacks(): string[];
  /** Hands every waiting request over now (on shutdown, so a queued check is not lost). */
  flush(): void;
  /** Drops every waiting request and its timer. */
  stop(): void;
}

export function createCheckDebouncer<C>(options: DebounceOptions<C>): CheckDebouncer<C> {
  const windowMs = options.windowMs ?? DEFAULT_DEBOUNCE_MS;
  const maxPending = options.maxPendingStacks ?? 1000;
  const maxChanges = options.maxChangesPerStack ?? 50;
  const pending = new Map<string, Pending<C>>();
  const counters: ChangeEventCounters = { scheduled: 0, coalesced: 0, overCapacity: 0, ignored: {}, unmatched: 0 };

  const due = (stack: string) => {
    const entry = pending.get(stack);
    if (!entry) return;
    pending.delete(stack);
    options.onDue({ ...entry.request, resources: [...entry.resources] });
  };

  // The latest are kept: who changed it last is what the alert names first.
  const addChange = (request: CheckRequest<C>, change: C) => {
    if (request.changes.length >= maxChanges) {
      request.changes.shift();
      request.changesDropped++;
    }
    request.changes.push(change);
  };

  const offerStack = (stack: string, addresses: string[], change: C) => {
    const waiting = pending.get(stack);
    if (waiting) {
      waiting.request.coalesced++;
      for (const a of addresses) waiting.resources.add(a);
      addChange(waiting.request, change);
      counters.coalesced++;
      return 'coalesced' as const;
    }
    if (pending.size >= maxPending) {
      counters.overCapacity++;
      return 'over_capacity' as const;
    }
    const request: CheckRequest<C> = { stack, resources: [], changes: [], coalesced: 0, changesDropped: 0 };
    addChange(request, change);
    const handle = options.timer.setTimeout(() => due(stack), windowMs);
    pending.set(stack, { request, resources: new Set(addresses), handle });
    counters.scheduled++;
    return 'scheduled' as const;
  };

  return {
    offer(matches, change) {
      const byStack = new Map<string, string[]>();
      for (const m of matches) {
        const list = byStack.get(m.stack) ?? [];
        list.push(m.address);
        byStack.set(m.stack, list);
      }
      return [...byStack].map(([stack, addresses]) => offerStack(stack, addresses, change));
    },
    countIgnored(reason) {
      counters.ignored[reason] = (counters.ignored[reason] ?? 0) + 1;
    },
    countUnmatched() {
      counters.unmatched++;
    },
    counters: () => ({ ...counters, ignored: { ...counters.ignored } }),
    pendingStacks: () => [...pending.keys()],
    flush() {
      for (const [stack, entry] of [...pending]) {
        options.timer.clearTimeout(entry.handle);
        due(stack);
      }
    },
    stop() {
      for (const entry of pending.values()) options.timer.clearTimeout(entry.handle);
      pending.clear();
    },
  };
}
