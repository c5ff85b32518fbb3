import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PoolHealth } from '../domain/pool/pool-health.js';

/** The Prometheus metrics of one driftgate process, served at /metrics. */
export interface Metrics {
  registry: Registry;
  planDuration: Histogram<'stack' | 'outcome'>;
  runsByOutcome: Counter<'outcome'>;
  driftedStacks: Gauge;
  slackApiErrors: Counter<'method' | 'retriable'>;
  pagerdutyErrors: Counter<'retriable'>;
  outboxPending: Gauge;
  leader: Gauge;
  poolWorkers: Gauge<'pool'>;
  poolJobsWaiting: Gauge<'pool'>;
  poolJobsActive: Gauge<'pool'>;
  poolOldestWaiting: Gauge<'pool'>;
  changeEvents: Counter<'outcome' | 'reason'>;
  changeEventsIndexed: Gauge;
  /** From now on the gauges read `sources` at each scrape (the store, opened after the ports are taken). */
  readGaugesFrom(sources: GaugeSources): void;
}

/** Where the gauges read their value at each scrape: the store, so they are right from the start. */
export interface GaugeSources {
  driftedStacks(): Promise<number>;
  outboxPending(): Promise<number>;
  /** Whether this process leads (runs the schedule, delivers the outbox); absent: it always does. */
  leading?(): boolean;
  /** Each worker pool's health (runners: workers); absent: no pool gauges. */
  pools?(): Promise<PoolHealth[]>;
}

/**
 * One read of the pools for the four pool gauges of a scrape: prom-client collects them together, and
 * they share the read in flight instead of asking the registry and the queue four times.
 */
function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  return () => {
    inFlight ??= read().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
}

export function createMetrics(initial?: GaugeSources): Metrics {
  const registry = new Registry();
  let sources = initial;
  collectDefaultMetrics({ register: registry, prefix: 'driftgate_' });
  const pools = sharedRead(async () => (sources?.pools ? sources.pools() : undefined));
  const poolGauge = (name: string, help: string, value: (h: PoolHealth) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['pool'],
      registers: [registry],
      async collect(this: Gauge<'pool'>) {
        const health = await pools();
        // A pool no longer configured (or no longer read) leaves no stale series behind.
        this.reset();
        for (const h of health ?? []) this.set({ pool: h.pool }, value(h));
      },
    });
  // Read from the store: absent until it is open, rather than a 0 (or a lead) nobody read while it opens.
  // Registered once `sources` are known, so `collect` always has them.
  const storeGauges: Gauge[] = [];
  const storeGauge = (name: string, help: string, value: (s: GaugeSources) => number | Promise<number>) => {
    const gauge = new Gauge({
      name,
      help,
      registers: [],
      async collect(this: Gauge) {
        if (sources) this.set(await value(sources));
      },
    });
    storeGauges.push(gauge);
    return gauge;
  };
  const metrics: Metrics = {
    registry,
    planDuration: new Histogram({
      name: 'driftgate_plan_duration_seconds',
      help: 'Wall time of a stack check (init, plan, show, analysis)',
      labelNames: ['stack', 'outcome'],
      buckets: [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers: [registry],
    }),
    runsByOutcome: new Counter({
      name: 'driftgate_runs_total',
      help: 'Checks finished, by outcome (no_changes, drifted, pending_approval, errored, interrupted, blocked)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    driftedStacks: storeGauge('driftgate_drifted_stacks', 'Stacks with an open drift', (s) => s.driftedStacks()),
    slackApiErrors: new Counter({
      name: 'driftgate_slack_api_errors_total',
      help: 'Slack Web API calls that failed, by method and whether they are retried',
      labelNames: ['method', 'retriable'],
      registers: [registry],
    }),
    pagerdutyErrors: new Counter({
      name: 'driftgate_pagerduty_errors_total',
      help: 'PagerDuty Events API deliveries that failed, by whether they are retried',
      labelNames: ['retriable'],
      registers: [registry],
    }),
    outboxPending: storeGauge('driftgate_outbox_pending', 'Outgoing Slack calls not yet delivered', (s) =>
      s.outboxPending(),
    ),
    leader: storeGauge(
      'driftgate_leader',
      '1 when this serve runs the schedule and delivers the outbox (the leader of its store), else 0',
      (s) => ((s.leading?.() ?? true) ? 1 : 0),
    ),
    poolWorkers: poolGauge(
      'driftgate_pool_workers',
      'Live workers of each pool (heartbeat within runners.workerStaleAfter)',
      (h) => h.liveWorkers,
    ),
    poolJobsWaiting: poolGauge(
      'driftgate_pool_jobs_waiting',
      "Jobs waiting in each pool's queue (checks, applies, codify)",
      (h) => h.waiting,
    ),
    poolJobsActive: poolGauge('driftgate_pool_jobs_active', 'Jobs of each pool a worker is running', (h) => h.active),
    poolOldestWaiting: poolGauge(
      'driftgate_pool_oldest_waiting_seconds',
      "Age of the oldest job waiting in each pool's queue (0 when none waits)",
      (h) => (h.waiting ? (h.oldestWaitingSeconds ?? 0) : 0),
    ),
    changeEvents: new Counter({
      name: 'driftgate_change_events_total',
      help: 'Cloud change events taken in, by outcome (ignored, unmatched, matched, refused) and reason (read_only, failed_call, own_apply, automation:<rule>; for matched: scheduled, coalesced, over_capacity; for refused: too_old, in_future)',
      labelNames: ['outcome', 'reason'],
      registers: [registry],
    }),
    changeEventsIndexed: new Gauge({
      name: 'driftgate_change_events_indexed_resources',
      help: 'Cloud resources the change-event intake matches events against (read from the resource index the checks keep)',
      registers: [registry],
    }),
    readGaugesFrom(next) {
      if (!sources) for (const gauge of storeGauges) registry.registerMetric(gauge);
      sources = next;
    },
  };
  if (sources) for (const gauge of storeGauges) registry.registerMetric(gauge);
  return metrics;
}

/**
 * A failed outbox delivery, counted where it failed: the outbox carries Slack calls and PagerDuty pages
 * (`pagerduty.*` methods), and a page that fails is PagerDuty's error, not Slack's.
 */
export function countOutboxFailure(
  metrics: Pick<Metrics, 'slackApiErrors' | 'pagerdutyErrors'>,
  method: string,
  dead: boolean,
): void {
  const retriable = String(!dead);
  if (method.startsWith('pagerduty.')) metrics.pagerdutyErrors.inc({ retriable });
  else metrics.slackApiErrors.inc({ method, retriable });
}
