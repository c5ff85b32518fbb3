import { describe, expect, it } from 'vitest';
import { createScheduler, SchedulerStoppedError, type CronLike } from '../../../src/services/runtime/scheduler.js';
import type { RunTrigger } from '../../../src/domain/run/state.js';
import { stackConfig } from '../../helpers/stack-config.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A cron whose ticks the test fires by hand: the schedule is the scheduler's clock. */
function manualCron() {
  const tasks = new Map<string, (() => void)[]>();
  const cron: CronLike = {
    schedule(expression, task) {
      tasks.set(expression, [...(tasks.get(expression) ?? []), task]);
      return { stop: () => void tasks.delete(expression) };
    },
  };
  return {
    cron,
    tick: (expression: string) => {
      for (const t of tasks.get(expression) ?? []) t();
    },
    tasks,
  };
}

/** Checks that stay open until the test releases them, recording what ran when. */
function controlledChecks() {
  const log: string[] = [];
  const open = new Map<string, { release: () => void; signal: AbortSignal }>();
  let active = 0;
  let maxActive = 0;
  const check = (stack: { name: string }, trigger: RunTrigger, signal: AbortSignal) => {
    active += 1;
    maxActive = Math.max(maxActive, active);
    log.push(`start ${stack.name} ${trigger}`);
    return new Promise<string>((resolve) => {
      const done = (how: string) => {
        active -= 1;
        open.delete(stack.name);
        log.push(`${how} ${stack.name}`);
        resolve(`${how} ${stack.name}`);
      };
      open.set(stack.name, { release: () => done('end'), signal });
      signal.addEventListener('abort', () => done('aborted'));
    });
  };
  const settle = () => new Promise((r) => setImmediate(r));
  return { log, open, check, settle, maxActive: () => maxActive };
}

const stacks = ['a', 'b', 'c', 'd'].map((n) =>
  stackConfig(n, `/tmp/${n}`, { schedule: `${n === 'a' ? 1 : 2} * * * *` }),
);

describe('scheduler', () => {
  it('never runs more than `concurrency` checks, and never two on one stack', async () => {
    const c = controlledChecks();
    const s = createScheduler({ stacks, concurrency: 2, jitterMs: 0, logger: silent, check: c.check });
    const results = stacks.map((st) => s.request(st.name));
    const again = s.request('a');
    await c.settle();
    expect(s.status()).toEqual({ running: ['a', 'b'], queued: ['c', 'd', 'a'] });
    c.open.get('a')!.release();
    await c.settle();
    expect(s.status().running.sort()).toEqual(['b', 'c']);
    while (c.open.size) {
      for (const o of [...c.open.values()]) o.release();
      await c.settle();
    }
    expect(await Promise.all(results)).toEqual(['end a', 'end b', 'end c', 'end d']);
    // `a` was running when asked again: it is checked once more after, not alongside.
    expect(await again).toBe('end a');
    expect(c.log.filter((l) => l === 'start a manual')).toHaveLength(2);
    expect(c.maxActive()).toBe(2);
  });

  it('skips a scheduled tick while the stack is still running (no pile-up)', async () => {
    const c = controlledChecks();
    const m = manualCron();
    const s = createScheduler({ stacks, concurrency: 4, jitterMs: 0, logger: silent, check: c.check, cron: m.cron });
    s.start();
    m.tick('1 * * * *');
    await new Promise((r) => setTimeout(r, 5));
    expect(s.status().running).toEqual(['a']);
    m.tick('1 * * * *');
    m.tick('1 * * * *');
    await new Promise((r) => setTimeout(r, 5));
    expect(s.status()).toEqual({ running: ['a'], queued: [] });
    c.open.get('a')!.release();
    await c.settle();
    expect(c.log).toEqual(['start a schedule', 'end a']);
    await s.stop(0);
  });

  it('schedules the stacks it is given again (re-discovery) and no longer those gone', async () => {
    const c = controlledChecks();
    const m = manualCron();
    const one = stackConfig('one', '/tmp/one', { schedule: '3 * * * *' });
    const two = stackConfig('two', '/tmp/two', { schedule: '4 * * * *' });
    const s = createScheduler({
      stacks: [one],
      concurrency: 4,
      jitterMs: 0,
      logger: silent,
      check: c.check,
      cron: m.cron,
    });
    s.start();
    await s.replaceStacks([two]);
    expect([...m.tasks.keys()]).toEqual(['4 * * * *']);
    m.tick('4 * * * *');
    await new Promise((r) => setTimeout(r, 5));
    expect(s.status().running).toEqual(['two']);
    await expect(s.request('one')).rejects.toThrow(/unknown stack one/);
    c.open.get('two')!.release();
    await c.settle();
    expect(c.log).toEqual(['start two schedule', 'end two']);
    await s.stop(0);
  });

  it('puts on-demand checks ahead of scheduled ones', async () => {
    const c = controlledChecks();
    const m = manualCron();
    const s = createScheduler({ stacks, concurrency: 1, jitterMs: 0, logger: silent, check: c.check, cron: m.cron });
    s.start();
    void s.request('a');
    await c.settle();
    m.tick('2 * * * *'); // b, c, d scheduled
    await new Promise((r) => setTimeout(r, 5));
    expect(s.status().queued).toEqual(['b', 'c', 'd']);
    const d = s.request('d');
    void s.request('c');
    expect(s.status().queued).toEqual(['d', 'c', 'b']);
    c.open.get('a')!.release();
    await c.settle();
    expect(s.status().running).toEqual(['d']);
    c.open.get('d')!.release();
    expect(await d).toBe('end d');
    await s.stop(0);
  });

  it('stops: cancels queued checks, waits for running ones, aborts them after the timeout', async () => {
    const c = controlledChecks();
    const s = createScheduler({ stacks, concurrency: 2, jitterMs: 0, logger: silent, check: c.check });
    const a = s.request('a');
    const b = s.request('b');
    const d = s.request('d').catch((err: unknown) => err);
    await c.settle();
    setTimeout(() => c.open.get('a')?.release(), 5);
    const stopped = await s.stop(50);
    expect(stopped).toEqual({ aborted: ['b'], cancelled: ['d'] });
    expect(await a).toBe('end a');
    expect(await b).toBe('aborted b');
    expect(await d).toBeInstanceOf(SchedulerStoppedError);
    await expect(s.request('a')).rejects.toBeInstanceOf(SchedulerStoppedError);
  });

  it('spreads scheduled starts with jitter', async () => {
    const c = controlledChecks();
    const m = manualCron();
    const s = createScheduler({
      stacks,
      concurrency: 4,
      jitterMs: 40,
      random: () => 1,
      logger: silent,
      check: c.check,
      cron: m.cron,
    });
    s.start();
    m.tick('1 * * * *');
    await new Promise((r) => setTimeout(r, 5));
    expect(s.status().running).toEqual([]);
    await new Promise((r) => setTimeout(r, 60));
    expect(s.status().running).toEqual(['a']);
    await s.stop(0);
  });
});

describe('scheduler: exclusive work (applies)', () => {
  it('never runs beside a check of the same stack, goes before queued checks and counts against concurrency', async () => {
    const c = controlledChecks();
    const s = createScheduler({ stacks, concurrency: 1, jitterMs: 0, logger: silent, check: c.check });
    const first = s.request('a');
    let releaseApply!: () => void;
    const apply = s.exclusive('a', async () => {
      c.log.push('start apply a');
      await new Promise<void>((r) => (releaseApply = r));
      c.log.push('end apply a');
      return 'applied';
    });
    const queuedCheck = s.request('b');
    await c.settle();
    // The check of a holds the only slot: the apply waits its turn, in the order things were asked for.
    expect(s.status()).toEqual({ running: ['a'], queued: ['a', 'b'] });
    c.open.get('a')!.release();
    await first;
    await c.settle();
    expect(c.log.at(-1)).toBe('start apply a');
    // A check of a asked for while the apply runs waits for it.
    const after = s.request('a');
    await c.settle();
    expect(c.log.filter((l) => l.startsWith('start'))).toEqual(['start a manual', 'start apply a']);
    releaseApply();
    expect(await apply).toBe('applied');
    while (c.open.size || s.status().queued.length) {
      for (const o of [...c.open.values()]) o.release();
      await c.settle();
    }
    await Promise.all([queuedCheck, after]);
    expect(c.log.filter((l) => l.startsWith('start'))).toEqual([
      'start a manual',
      'start apply a',
      'start b manual',
      'start a manual',
    ]);
    expect(c.maxActive()).toBe(1);
  });

  it('refuses exclusive work after stop and for an unknown stack', async () => {
    const c = controlledChecks();
    const s = createScheduler({ stacks, concurrency: 1, jitterMs: 0, logger: silent, check: c.check });
    await expect(s.exclusive('nope', async () => 1)).rejects.toThrow(/unknown stack nope/);
    await s.stop(0);
    await expect(s.exclusive('a', async () => 1)).rejects.toBeInstanceOf(SchedulerStoppedError);
  });
});
