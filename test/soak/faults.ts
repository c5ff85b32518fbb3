/**
 * The faults the soak injects, each a function of the world and the moment: a process killed with
 * kill -9 (any, or one caught mid-plan, mid-apply or holding an alert in its digest window), Postgres
 * stopped and started, Slack and PagerDuty answering 5xx or 429 for a while. A targeted fault whose
 * moment has not come says so (undefined) and the driver tries again on its next tick.
 */
import type { Store } from '../../src/ports/store.js';
import type { Random } from './prng.js';
import type { Member, Pool, SoakWorld } from './world.js';

export const FAULT_KINDS = [
  'kill-serve',
  'kill-serve-mid-digest',
  'kill-serve-mid-apply',
  'kill-worker',
  'kill-worker-mid-plan',
  'kill-worker-mid-apply',
  'postgres-restart',
  'slack-5xx',
  'slack-429',
  'pagerduty-5xx',
  'pagerduty-429',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** How often each is chosen. */
export const FAULT_WEIGHTS: Record<FaultKind, number> = {
  'kill-serve': 2,
  'kill-serve-mid-digest': 3,
  'kill-serve-mid-apply': 2,
  'kill-worker': 1,
  'kill-worker-mid-plan': 3,
  'kill-worker-mid-apply': 3,
  'postgres-restart': 2,
  'slack-5xx': 2,
  'slack-429': 1,
  'pagerduty-5xx': 1,
  'pagerduty-429': 1,
};

/** What a fault did: its target, and what ends it later (a restart, an outage's end) after `forMs`. */
export interface Injected {
  detail: Record<string, unknown>;
  /** Killed processes, to start again. */
  killed?: Member[];
  /** An outage to end after `forMs`. */
  outage?: { what: 'slack' | 'postgres'; forMs: number };
}

export interface FaultContext {
  world: SoakWorld;
  store: Store;
  rng: Random;
}

/** The jobs a worker has started and not finished, from its own log lines. */
export function jobsInProgress(member: Member): { jobId: string; kind: string; stack: string }[] {
  const open = new Map<string, { jobId: string; kind: string; stack: string }>();
  for (const line of member.proc.logs()) {
    if (!line.includes('"job')) continue;
    let entry: { msg?: string; jobId?: string | number; kind?: string; stack?: string };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (entry.jobId === undefined) continue;
    const id = String(entry.jobId);
    if (entry.msg === 'job started') open.set(id, { jobId: id, kind: entry.kind ?? '', stack: entry.stack ?? '' });
    else if (entry.msg?.startsWith('job ')) open.delete(id);
  }
  return [...open.values()];
}

async function killWorkerBusyWith(ctx: FaultContext, kind?: 'plan' | 'apply'): Promise<Injected | undefined> {
  const busy = ctx.world
    .live('worker')
    .map((member) => ({ member, jobs: jobsInProgress(member).filter((j) => kind === undefined || j.kind === kind) }))
    .filter((b) => kind === undefined || b.jobs.length > 0);
  const target = ctx.rng.pick(busy);
  if (!target) return undefined;
  await ctx.world.kill9(target.member);
  return {
    detail: { pid: target.member.proc.pid, pool: target.member.pool, jobs: target.jobs },
    killed: [target.member],
  };
}

/** A live serve holding an alert in its digest window (its `alert_held` names it, the window is open). */
async function serveHoldingAlert(ctx: FaultContext): Promise<{ member: Member; runId: string } | undefined> {
  const now = Date.now();
  const recent = await ctx.store.listAudit({ limit: 200 });
  const told = new Set(
    recent.filter((a) => a.action === 'alert_posted' || a.action === 'alert_digested').map((a) => a.runId),
  );
  for (const entry of recent) {
    if (entry.action !== 'alert_held' || !entry.runId || told.has(entry.runId)) continue;
    const until = typeof entry.detail?.until === 'string' ? Date.parse(entry.detail.until) : 0;
    const holder = entry.detail?.holder as { pid?: number } | undefined;
    if (until <= now) continue;
    const member = ctx.world.live('serve').find((m) => m.proc.pid === holder?.pid);
    if (member) return { member, runId: entry.runId };
  }
  return undefined;
}

export async function inject(kind: FaultKind, ctx: FaultContext): Promise<Injected | undefined> {
  const { world, rng } = ctx;
  switch (kind) {
    case 'kill-serve': {
      const target = rng.pick(world.live('serve'));
      if (!target) return undefined;
      await world.kill9(target);
      return { detail: { pid: target.proc.pid }, killed: [target] };
    }
    case 'kill-serve-mid-digest': {
      const held = await serveHoldingAlert(ctx);
      if (!held) return undefined;
      await world.kill9(held.member);
      return { detail: { pid: held.member.proc.pid, heldRun: held.runId }, killed: [held.member] };
    }
    case 'kill-serve-mid-apply': {
      const applying = await ctx.store.listRuns({ states: ['applying'] });
      const target = rng.pick(world.live('serve'));
      if (applying.length === 0 || !target) return undefined;
      await world.kill9(target);
      return { detail: { pid: target.proc.pid, applying: applying.map((r) => r.id) }, killed: [target] };
    }
    case 'kill-worker':
      return killWorkerBusyWith(ctx);
    case 'kill-worker-mid-plan':
      return killWorkerBusyWith(ctx, 'plan');
    case 'kill-worker-mid-apply':
      return killWorkerBusyWith(ctx, 'apply');
    case 'postgres-restart': {
      await world.postgres.outage!.begin();
      return { detail: {}, outage: { what: 'postgres', forMs: rng.int(2_000, 8_000) } };
    }
    case 'slack-5xx': {
      await world.pool.emulator.down('unavailable');
      return { detail: { status: 503 }, outage: { what: 'slack', forMs: rng.int(3_000, 15_000) } };
    }
    case 'slack-429': {
      const n = rng.int(3, 12);
      world.pool.emulator.rateLimitNext(n, 1);
      return { detail: { requests: n, retryAfter: 1 } };
    }
    case 'pagerduty-5xx': {
      // Counted in requests, which a failing item's backoff doubles: a few, or the outage outlasts the quiet.
      const n = rng.int(1, 2);
      world.pagerduty.failNext(n, { status: rng.pick([500, 502, 503] as const)! });
      return { detail: { requests: n } };
    }
    case 'pagerduty-429': {
      const n = rng.int(2, 8);
      world.pagerduty.rateLimitNext(n, 1);
      return { detail: { requests: n, retryAfter: 1 } };
    }
  }
}

/** Ends an outage a fault began. */
export async function endOutage(world: SoakWorld, what: 'slack' | 'postgres'): Promise<void> {
  if (what === 'slack') await world.pool.emulator.up();
  else await world.postgres.outage!.end();
}

/** Starts a process like the one that was killed. */
export function restartLike(world: SoakWorld, member: Member): Promise<Member> {
  return member.role === 'serve' ? world.startServe() : world.startWorker(member.pool as Pool);
}
