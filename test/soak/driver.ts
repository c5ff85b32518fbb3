/**
 * The soak's loop: every tick, people act (actions.ts), and at random moments a fault is injected
 * (faults.ts); killed processes are started again a few seconds later, outages end after theirs. A
 * process that ends without the soak ending it is written down and started again. Then the faults stop
 * and the world is left to settle before the checks.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../../src/ports/store.js';
import { act, ACTION_WEIGHTS } from './actions.js';
import { endOutage, FAULT_WEIGHTS, type FaultKind, inject, restartLike } from './faults.js';
import type { History } from './history.js';
import type { Random } from './prng.js';
import type { Member, Pool, SoakWorld } from './world.js';

/** The processes a settled world runs: two replicas, two prod workers, one nonprod worker. */
export const CAST: { role: Member['role']; pool?: Pool }[] = [
  { role: 'serve' },
  { role: 'serve' },
  { role: 'worker', pool: 'prod' },
  { role: 'worker', pool: 'prod' },
  { role: 'worker', pool: 'nonprod' },
];

export interface DriveOptions {
  faultsForMs: number;
  /** Between two faults, at random. */
  faultGapMs: [number, number];
  /** Longest wait for the world to settle once the faults stopped. */
  settleMs: number;
}

export interface DriveResult {
  faults: Record<string, number>;
  skipped: Record<string, number>;
  actions: Record<string, number>;
  /** When the faults stopped: runs created after are the settling sweep's. */
  quietFrom: Date;
  settled: boolean;
  /** What still moved when the settling gave up. */
  unsettled?: string;
}

/** A targeted fault waits this long for its moment (a plan, an apply, an alert held) before it is skipped. */
const ARMED_FOR_MS = 20_000;

export async function drive(
  world: SoakWorld,
  store: Store,
  rng: Random,
  history: History,
  options: DriveOptions,
): Promise<DriveResult> {
  const faults: Record<string, number> = {};
  const skipped: Record<string, number> = {};
  const actions: Record<string, number> = {};
  const restarts: { at: number; like: Member }[] = [];
  const outages: { at: number; what: 'slack' | 'postgres' }[] = [];
  const starting = new Set<Promise<unknown>>();
  const noticed = new Set<Member>();
  const begin = Date.now();
  const stopAt = begin + options.faultsForMs;
  let nextFault = begin + rng.int(...options.faultGapMs);
  let armed: { kind: FaultKind; since: number } | undefined;
  const postgresDown = () => outages.some((o) => o.what === 'postgres');

  const startAgain = (like: Member, why: string) => {
    const started = restartLike(world, like).then(
      (member) =>
        history.record({ kind: 'process_started', role: member.role, pool: member.pool, pid: member.proc.pid, why }),
      (err: unknown) => {
        history.record({
          kind: 'process_start_failed',
          role: like.role,
          pool: like.pool,
          error: String(err).slice(0, 500),
        });
        restarts.push({ at: Date.now() + 2_000, like });
      },
    );
    starting.add(started);
    void started.finally(() => starting.delete(started));
  };

  /** Processes that ended on their own; due restarts; due ends of outages. */
  async function upkeep(now: number) {
    for (const member of world.members) {
      const exit = member.proc.exited();
      if (!exit || member.endedBySoak || noticed.has(member)) continue;
      noticed.add(member);
      history.record({
        kind: 'process_exited',
        role: member.role,
        pool: member.pool,
        pid: member.proc.pid,
        ...exit,
        tail: member.proc.logs().slice(-5),
      });
      restarts.push({ at: now, like: member });
    }
    for (const outage of outages.filter((o) => o.at <= now)) {
      await endOutage(world, outage.what);
      outages.splice(outages.indexOf(outage), 1);
      history.record({ kind: 'outage_ended', what: outage.what });
    }
    if (postgresDown()) return;
    for (const due of restarts.filter((r) => r.at <= now)) {
      restarts.splice(restarts.indexOf(due), 1);
      startAgain(due.like, 'restart');
    }
  }

  async function fault(now: number) {
    if (!armed) {
      if (now < nextFault) return;
      armed = { kind: rng.weighted(FAULT_WEIGHTS), since: now };
    }
    // One Postgres outage at a time, and no fault while the processes killed last are still starting.
    if ((armed.kind === 'postgres-restart' && postgresDown()) || starting.size > 0) return;
    let injected: Awaited<ReturnType<typeof inject>>;
    try {
      injected = await inject(armed.kind, { world, store, rng });
    } catch (err) {
      history.record({ kind: 'fault_failed', fault: armed.kind, error: String(err).slice(0, 500) });
      injected = undefined;
    }
    if (!injected) {
      if (now - armed.since < ARMED_FOR_MS) return;
      skipped[armed.kind] = (skipped[armed.kind] ?? 0) + 1;
      history.record({ kind: 'fault_skipped', fault: armed.kind, why: 'its moment did not come' });
    } else {
      faults[armed.kind] = (faults[armed.kind] ?? 0) + 1;
      history.record({ kind: 'fault', fault: armed.kind, ...injected.detail });
      for (const member of injected.killed ?? []) restarts.push({ at: now + rng.int(2_000, 10_000), like: member });
      if (injected.outage) outages.push({ at: now + injected.outage.forMs, what: injected.outage.what });
    }
    armed = undefined;
    nextFault = now + rng.int(...options.faultGapMs);
  }

  history.record({ kind: 'faults_begin', forMs: options.faultsForMs });
  while (Date.now() < stopAt) {
    const now = Date.now();
    await upkeep(now).catch((err: unknown) =>
      history.record({ kind: 'upkeep_failed', error: String(err).slice(0, 500) }),
    );
    await fault(now);
    const kind = rng.weighted(ACTION_WEIGHTS);
    // Reads of the store fail while Postgres is down: the person tries again later.
    await act(kind, { world, store, rng, history }).then(
      () => {
        actions[kind] = (actions[kind] ?? 0) + 1;
      },
      (err: unknown) => history.record({ kind: 'action_failed', action: kind, error: String(err).slice(0, 300) }),
    );
    await sleep(rng.int(300, 1_500));
  }

  // Quiet: every outage ends, every process runs again, and nobody acts.
  const quietFrom = new Date();
  history.record({ kind: 'quiet_begin' });
  for (const outage of outages.splice(0)) {
    await endOutage(world, outage.what);
    history.record({ kind: 'outage_ended', what: outage.what });
  }
  await world.pool.emulator.up();
  await Promise.all([...starting]);
  for (const due of restarts.splice(0)) startAgain(due.like, 'quiet');
  await Promise.all([...starting]);
  await upkeep(Date.now());
  await Promise.all([...starting]);
  // Whatever is missing from the cast (a start that failed) is started now.
  for (const role of CAST) {
    const have = world.live(role.role, role.pool).length;
    const want = CAST.filter((c) => c.role === role.role && c.pool === role.pool).length;
    if (have < want) startAgain({ role: role.role, ...(role.pool ? { pool: role.pool } : {}) } as Member, 'cast');
    await Promise.all([...starting]);
  }
  const settle = await settled(world, store, options.settleMs);
  history.record({
    kind: 'quiet_end',
    settled: settle.settled,
    ...(settle.unsettled ? { unsettled: settle.unsettled } : {}),
  });
  return { faults, skipped, actions, quietFrom, ...settle };
}

/**
 * Settled: nothing planning, applying or approved, nothing left in the outbox, no alert held, two reads
 * 3 s apart. The minute's sweep may start meanwhile; its runs are waited out too.
 */
async function settled(
  world: SoakWorld,
  store: Store,
  withinMs: number,
): Promise<{ settled: boolean; unsettled?: string }> {
  const until = Date.now() + withinMs;
  let calm = 0;
  let why = '';
  while (Date.now() < until) {
    why = await stillMoving(store).catch((err: unknown) => `store unreadable: ${String(err)}`);
    calm = why ? 0 : calm + 1;
    if (calm >= 2) return { settled: true };
    await sleep(3_000);
  }
  void world;
  return { settled: false, unsettled: why };
}

async function stillMoving(store: Store): Promise<string> {
  const moving = await store.listRuns({ states: ['planning', 'applying', 'approved'] });
  if (moving.length) return `runs ${moving.map((r) => `${r.id} (${r.stack}) ${r.state}`).join(', ')}`;
  const pending = await store.pendingCount();
  if (pending) return `${pending} outbox items pending`;
  const recent = await store.listAudit({ limit: 100 });
  const told = new Set(
    recent.filter((a) => a.action === 'alert_posted' || a.action === 'alert_digested').map((a) => a.runId),
  );
  const held = recent.filter((a) => a.action === 'alert_held' && !told.has(a.runId));
  for (const h of held) {
    const run = h.runId ? await store.getRun(h.runId) : undefined;
    if (run && ['drifted', 'pending_approval'].includes(run.state) && !(await store.hasMessage(run.id)))
      return `alert of ${run.id} held`;
  }
  return '';
}
