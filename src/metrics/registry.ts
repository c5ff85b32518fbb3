import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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
  changeEvents: Counter<'outcome' | 'reason'>;
  /** From now on the gauges read `sources` at each scrape (the store, opened after the ports are taken). */
  readGaugesFrom(sources: GaugeSources): void;
}

/** Where the gauges read their value at each scrape: the store, so they are right from the start. */
export interface GaugeSources {
  driftedStacks(): Promise<number>;
  outboxPending(): Promise<number>;
  /** Whether this process leads (runs the schedule, delivers the outbox); absent: it always does. */
  leading?(): boolean;
}

export function createMetrics(initial?: GaugeSources): Metrics {
  const registry = new Registry();
  let sources = initial;
  collectDefaultMetrics({ register: registry, prefix: 'driftgate_' });
  return {
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
    driftedStacks: new Gauge({
      name: 'driftgate_drifted_stacks',
      help: 'Stacks with an open drift',
      registers: [registry],
      async collect(this: Gauge) {
        if (sources) this.set(await sources.driftedStacks());
      },
    }),
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
    outboxPending: new Gauge({
      name: 'driftgate_outbox_pending',
      help: 'Outgoing Slack calls not yet delivered',
      registers: [registry],
      async collect(this: Gauge) {
        if (sources) this.set(await sources.outboxPending());
      },
    }),
    leader: new Gauge({
      name: 'driftgate_leader',
      help: '1 when this serve runs the schedule and delivers the outbox (the leader of its store), else 0',
      registers: [registry],
      collect(this: Gauge) {
        this.set(!sources || (sources.leading?.() ?? true) ? 1 : 0);
      },
    }),
    changeEvents: new Counter({
      name: 'driftgate_change_events_total',
      help: 'Cloud change events taken in, by outcome (ignored, unmatched, matched) and reason (read_only, failed_call, own_apply, automation:<rule>; for matched: scheduled, coalesced, over_capacity)',
      labelNames: ['outcome', 'reason'],
      registers: [registry],
    }),
    readGaugesFrom(next) {
      sources = next;
    },
  };
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
