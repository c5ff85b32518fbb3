/**
 * PagerDuty Events API v2 bodies for a stack's drift, built from domain objects only. A page goes to
 * people's phones and into a third party's database, so it carries counts, addresses, ids and times, and
 * never an attribute value: only `address`, `action`, `counts` and the causes (names, versions, serials)
 * of the analysis are ever read here.
 *
 * The routing key is not part of what this builds: it is a secret, added by the PagerDuty client at
 * delivery (see src/adapters/pagerduty/page-deliverer.ts), so a queued page never holds it.
 */
import { createHash } from 'node:crypto';
import type { Stack } from '../stack.js';
import type { ActionCounts, ChangeAction, PlanAnalysis } from '../plan/model.js';
import { causeText, groupByCauses } from '../drift-causes/describe.js';
import type { DriftCauses } from '../drift-causes/model.js';
import { formatCounts } from '../plan/render-text.js';
import type { Run } from '../run/model.js';
import type { PageSeverity } from './model.js';

/** PagerDuty's limits on the fields driftgate fills. */
export const PAGE_LIMITS = { summary: 1024, dedupKey: 255 } as const;
/** Resource addresses listed in a page's details; the rest are counted. */
export const PAGE_MAX_RESOURCES = 20;
export const PAGE_SOURCE = 'driftgate';
/** Changes named in a page's details, newest first. */
export const PAGE_MAX_CHANGES = 5;
/** Lines of `why` in a page's details, and the characters of each; resources past them are counted. */
export const PAGE_MAX_WHY = { lines: 8, line: 300, addressesPerLine: 3 } as const;
const FINGERPRINT_PREFIX = 12;

export interface PageDetails {
  counts: ActionCounts;
  run_id: string;
  fingerprint: string;
  first_seen?: string;
  /** Permalink of the run's Slack message, when it was posted before the page went out. */
  slack_message?: string;
  /** Otherwise the channel the run's alert goes to, when Slack is configured. */
  slack_channel?: string;
  /** `update aws_s3_bucket.logs`: action and address, nothing else. */
  resources: string[];
  resources_omitted?: number;
  /** Who changed the drifted resources and with which call (`PutBucketPolicy`); never a value. */
  changed_by?: { principal: string; event_name: string; at: string }[];
  /**
   * Why the resources differ, resources with the same causes on one line:
   * `aws_s3_bucket.logs: changed in the console by alice at 2026-12-02T10:00:00Z (PutBucketPolicy)`.
   */
  why?: string[];
  /** Resources whose causes did not fit in `why`. */
  why_omitted?: number;
}

/** What a page about an interrupted apply carries: the run and who started it (a Slack user id). */
export interface InterruptedApplyDetails {
  run_id: string;
  started_by: string;
  slack_message?: string;
  slack_channel?: string;
}

export interface PagePayload<D = PageDetails> {
  summary: string;
  source: string;
  severity: PageSeverity;
  timestamp: string;
  component: string;
  group?: string;
  class: 'drift' | 'apply_interrupted';
  custom_details: D;
}

/** An Events API v2 event without its `routing_key`. */
type TriggerBody<D> = {
  event_action: 'trigger';
  dedup_key: string;
  payload: PagePayload<D>;
  client: string;
  client_url?: string;
};
export type DriftPageEvent = TriggerBody<PageDetails> | { event_action: 'resolve'; dedup_key: string };
/** Any page driftgate sends: about drift, or about an apply driftgate could not finish. */
export type PageEventBody =
  | TriggerBody<PageDetails>
  | TriggerBody<InterruptedApplyDetails>
  | { event_action: 'resolve'; dedup_key: string };

export interface TriggerInput {
  stack: Pick<Stack, 'name' | 'environment'>;
  severity: PageSeverity;
  run: Pick<Run, 'id' | 'updatedAt'>;
  analysis: Pick<PlanAnalysis, 'counts' | 'fingerprint'> & {
    changes: readonly { address: string; action: ChangeAction }[];
    causes?: DriftCauses;
  };
  /** When the open drift was first seen (it may predate this run). */
  firstSeenAt?: Date;
  /** Who changed the drifted resources, newest first (change events, CloudTrail). */
  changes?: readonly { principal: { display: string }; eventName: string; at: Date }[];
}

/** Where a page points in Slack: the run's message once it is posted, else the channel it is posted in. */
export type PageSlackLink = { message: string } | { channel: string };

/**
 * One incident per stack: a drift pages once however often it is seen, and its resolve closes that
 * incident. A name too long for PagerDuty's 255 characters is hashed, which keeps it stable.
 */
export function pageDedupKey(stackName: string): string {
  const key = `${PAGE_SOURCE}:${stackName}`;
  if (key.length <= PAGE_LIMITS.dedupKey) return key;
  return `${PAGE_SOURCE}:sha256:${createHash('sha256').update(stackName).digest('hex')}`;
}

/** The drift's causes as a page tells them: a few short lines, times as written (a page has no reader's clock). */
function whyLines(causes: DriftCauses | undefined): Pick<PageDetails, 'why' | 'why_omitted'> {
  const groups = groupByCauses(causes, (list) => list.map((c) => causeText(c)).join('; '));
  const why: string[] = [];
  let omitted = 0;
  for (const { text, addresses } of groups) {
    if (why.length === PAGE_MAX_WHY.lines) {
      omitted += addresses.length;
      continue;
    }
    const named = addresses.slice(0, PAGE_MAX_WHY.addressesPerLine).join(', ');
    const more =
      addresses.length > PAGE_MAX_WHY.addressesPerLine
        ? ` and ${addresses.length - PAGE_MAX_WHY.addressesPerLine} more`
        : '';
    const line = `${named}${more}: ${text}`;
    why.push(line.length <= PAGE_MAX_WHY.line ? line : `${line.slice(0, PAGE_MAX_WHY.line - 1)}…`);
  }
  return { ...(why.length ? { why } : {}), ...(omitted ? { why_omitted: omitted } : {}) };
}

export function buildTriggerEvent(input: TriggerInput): DriftPageEvent {
  const { stack, run, analysis } = input;
  const shown = analysis.changes.slice(0, PAGE_MAX_RESOURCES).map((c) => `${c.action} ${c.address}`);
  const omitted = analysis.changes.length - shown.length;
  const details: PageDetails = {
    counts: { ...analysis.counts },
    run_id: run.id,
    fingerprint: analysis.fingerprint.slice(0, FINGERPRINT_PREFIX),
    ...(input.firstSeenAt ? { first_seen: input.firstSeenAt.toISOString() } : {}),
    resources: shown,
    ...(omitted > 0 ? { resources_omitted: omitted } : {}),
    ...(input.changes?.length
      ? {
          changed_by: input.changes.slice(0, PAGE_MAX_CHANGES).map((c) => ({
            principal: c.principal.display.slice(0, 200),
            event_name: c.eventName.slice(0, 100),
            at: c.at.toISOString(),
          })),
        }
      : {}),
    ...whyLines(analysis.causes),
  };
  return {
    event_action: 'trigger',
    dedup_key: pageDedupKey(stack.name),
    payload: {
      summary: pageSummary('Drift in ', stack.name, `: ${formatCounts(analysis.counts)} (run ${run.id})`),
      source: PAGE_SOURCE,
      severity: input.severity,
      timestamp: run.updatedAt.toISOString(),
      component: stack.name,
      ...(stack.environment !== undefined ? { group: stack.environment } : {}),
      class: 'drift',
      custom_details: details,
    },
    client: PAGE_SOURCE,
  };
}

/**
 * A trigger with its Slack link, added when it is delivered rather than built: the alert is usually
 * posted a little after the page is queued. A message's permalink is also the incident's `client_url`.
 */
export function withSlackLink<E extends PageEventBody>(event: E, link: PageSlackLink | undefined): E {
  if (!link || event.event_action !== 'trigger') return event;
  const details = 'message' in link ? { slack_message: link.message } : { slack_channel: link.channel };
  const { payload } = event as Extract<PageEventBody, { event_action: 'trigger' }>;
  // Both kinds of details have room for the link: the spread keeps the event's own kind.
  return {
    ...event,
    payload: { ...payload, custom_details: { ...payload.custom_details, ...details } },
    ...('message' in link ? { client_url: link.message } : {}),
  } as E;
}

export function buildResolveEvent(stack: Pick<Stack, 'name'>): DriftPageEvent {
  return { event_action: 'resolve', dedup_key: pageDedupKey(stack.name) };
}

const INTERRUPTED_APPLY_KEY = `${PAGE_SOURCE}:apply-interrupted:`;

/** The incident of one interrupted apply: its own, per run (see buildInterruptedApplyEvent). */
export const interruptedApplyDedupKey = (runId: string): string => `${INTERRUPTED_APPLY_KEY}${runId}`;
export const isInterruptedApplyKey = (key: unknown): boolean =>
  typeof key === 'string' && key.startsWith(INTERRUPTED_APPLY_KEY);

/**
 * driftgate stopped while applying `run` (found at its next start): the stack may be half applied. Its own
 * incident, per run: folded into the stack's drift incident, which is usually still open, it would wake nobody.
 */
export function buildInterruptedApplyEvent(input: {
  stack: Pick<Stack, 'name' | 'environment'>;
  severity: PageSeverity;
  run: Pick<Run, 'id' | 'updatedAt'>;
  startedBy: string;
}): PageEventBody {
  const { stack, run } = input;
  return {
    event_action: 'trigger',
    dedup_key: interruptedApplyDedupKey(run.id),
    payload: {
      summary: pageSummary(
        'Apply interrupted in ',
        stack.name,
        `: driftgate stopped while applying run ${run.id}; the infrastructure may be half applied`,
      ),
      source: PAGE_SOURCE,
      severity: input.severity,
      timestamp: run.updatedAt.toISOString(),
      component: stack.name,
      ...(stack.environment !== undefined ? { group: stack.environment } : {}),
      class: 'apply_interrupted',
      custom_details: { run_id: run.id, started_by: input.startedBy },
    },
    client: PAGE_SOURCE,
  };
}

/**
 * `<head><stack><tail>` within PagerDuty's 1024 characters. A long stack name is cut in its middle,
 * not the end of the line: the counts and the run id are what the person paged reads first. (Stack
 * names are ASCII, see the config schema, so a cut cannot split a character.)
 */
function pageSummary(head: string, stackName: string, tail: string): string {
  const whole = `${head}${stackName}${tail}`;
  const room = PAGE_LIMITS.summary - head.length - tail.length - 1;
  if (whole.length <= PAGE_LIMITS.summary || room < 2) return whole.slice(0, PAGE_LIMITS.summary);
  const front = Math.ceil(room / 2);
  return `${head}${stackName.slice(0, front)}…${stackName.slice(stackName.length - (room - front))}${tail}`;
}
