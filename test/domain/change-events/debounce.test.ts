import { describe, expect, it } from 'vitest';
import {
  type CheckRequest,
  createCheckDebouncer,
  type DebounceTimer,
} from '../../../src/domain/change-events/debounce.js';

/** A timer driven by hand: `advance(ms)` runs what falls due, in order. */
function manualTimer() {
  let now = 0;
  let nextId = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const timer: DebounceTimer & { advance(ms: number): void; count(): number } = {
    setTimeout(fn, ms) {
      const id = ++nextId;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const next = [...timers].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (!next) break;
        timers.delete(next[0]);
        now = next[1].at;
        next[1].fn();
      }
      now = until;
    },
    count: () => timers.size,
  };
  return timer;
}

function setup(options: { maxPendingStacks?: number; maxChangesPerStack?: number } = {}) {
  const timer = manualTimer();
  const due: CheckRequest<string>[] = [];
  const debouncer = createCheckDebouncer<string>({ timer, onDue: (r) => due.push(r), ...options });
  return { timer, due, debouncer };
}

describe('check debouncer', () => {
  it("makes one check of a stack for a console session's several clicks within the window", () => {
    const { timer, due, debouncer } = setup();
    expect(debouncer.offer([{ stack: 'prod/app', address: 'aws_s3_bucket.a' }], 'PutBucketTagging')).toEqual([
      'scheduled',
    ]);
    timer.advance(30_000);
    expect(debouncer.offer([{ stack: 'prod/app', address: 'aws_s3_object.b' }], 'PutObject')).toEqual(['coalesced']);
    timer.advance(60_000);
    expect(debouncer.offer([{ stack: 'prod/app', address: 'aws_s3_bucket.a' }], 'DeleteBucketPolicy')).toEqual([
      'coalesced',
    ]);
    expect(due).toEqual([]);
    timer.advance(30_000);
    expect(due).toEqual([
      {
        stack: 'prod/app',
        resources: ['aws_s3_bucket.a', 'aws_s3_object.b'],
        changes: ['PutBucketTagging', 'PutObject', 'DeleteBucketPolicy'],
        coalesced: 2,
        changesDropped: 0,
      },
    ]);
    expect(debouncer.counters()).toMatchObject({ scheduled: 1, coalesced: 2 });
  });

  it('opens a new window for an event after the check was requested', () => {
    const { timer, due, debouncer } = setup();
    debouncer.offer([{ stack: 's', address: 'a' }], 'one');
    timer.advance(120_000);
    debouncer.offer([{ stack: 's', address: 'a' }], 'two');
    timer.advance(120_000);
    expect(due.map((r) => r.changes)).toEqual([['one'], ['two']]);
  });

  it('requests one check per stack an event names', () => {
    const { timer, due, debouncer } = setup();
    debouncer.offer(
      [
        { stack: 'a', address: 'x' },
        { stack: 'b', address: 'y' },
        { stack: 'a', address: 'z' },
      ],
      'ev',
    );
    timer.advance(120_000);
    expect(due.map((r) => [r.stack, r.resources])).toEqual([
      ['a', ['x', 'z']],
      ['b', ['y']],
    ]);
  });

  it('stays bounded in a burst: stacks over the cap and changes over the per-stack cap are counted', () => {
    const { timer, due, debouncer } = setup({ maxPendingStacks: 100, maxChangesPerStack: 5 });
    for (let i = 0; i < 10_000; i++) debouncer.offer([{ stack: `stack-${i % 300}`, address: 'r' }], `e${i}`);
    expect(debouncer.pendingStacks()).toHaveLength(100);
    expect(timer.count()).toBe(100);
    timer.advance(120_000);
    expect(due).toHaveLength(100);
    // The latest of each stack's changes are kept.
    expect(due[0]).toMatchObject({ stack: 'stack-0', changes: ['e8700', 'e9000', 'e9300', 'e9600', 'e9900'] });
    expect(due[0]!.changesDropped).toBe(34 - 5);
    const counters = debouncer.counters();
    expect(counters.scheduled).toBe(100);
    expect(counters.scheduled + counters.coalesced + counters.overCapacity).toBe(10_000);
    // 10,000 round-robin over 300 stacks: the first 100 get 34 events each, the other 200 get 33, all refused.
    expect(counters).toMatchObject({ coalesced: 100 * 33, overCapacity: 200 * 33 });
  });

  it('counts ignored and unmatched events by reason', () => {
    const { debouncer } = setup();
    debouncer.countIgnored('read_only');
    debouncer.countIgnored('read_only');
    debouncer.countIgnored('automation:karpenter');
    debouncer.countUnmatched();
    expect(debouncer.counters()).toMatchObject({
      ignored: { read_only: 2, 'automation:karpenter': 1 },
      unmatched: 1,
    });
  });

  it('hands waiting requests over on flush and forgets them on stop', () => {
    const { timer, due, debouncer } = setup();
    debouncer.offer([{ stack: 'a', address: 'x' }], 'ev');
    debouncer.flush();
    expect(due).toHaveLength(1);
    expect(timer.count()).toBe(0);
    debouncer.offer([{ stack: 'b', address: 'y' }], 'ev');
    debouncer.stop();
    timer.advance(1_000_000);
    expect(due).toHaveLength(1);
  });
});
