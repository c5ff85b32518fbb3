import type { ChangeDescription } from './describe.js';

/**
 * Who changed a stack's drifted resources: what a drift alert says and what a policy reads. Found from
 * the change events that queued the check, or from the cloud's audit log for drift a sweep found.
 */

/** A described change and the resource of the stack it touched, when the index knew it. */
export interface AttributedChange extends ChangeDescription {
  resource?: string;
}

/**
 * `notLookedUp`: drifted resources CloudTrail was not asked about, past the lookups a check may make (each
 * is rate-limited by the cloud): said in the alert, so that "no call found" is never read as "nobody".
 */
export type Attribution =
  /** `unanswered`: CloudTrail did not answer about the drifted resources no change names. */
  | { status: 'found'; changes: AttributedChange[]; unanswered?: true; notLookedUp?: number }
  /** CloudTrail was asked and knew of no call: made before its 90 days, or by a call it does not log. */
  | { status: 'none'; notLookedUp?: number }
  /** CloudTrail did not answer (throttled, no access, down): the alert goes out without the who. */
  | { status: 'unknown' };

/** One change as policies see it (`drift.changes[]`): who, how, which call and when; never a value. */
export interface PolicyChange {
  principal: { kind: string; arn: string; name: string; issuer: string };
  how: string;
  event_name: string;
  event_source: string;
  /** RFC 3339. */
  time: string;
  resource: string;
}

/** Empty fields rather than absent ones: CEL reads a missing key as an error, not as false. */
export function policyChanges(attribution: Attribution | undefined): PolicyChange[] {
  if (attribution?.status !== 'found') return [];
  return attribution.changes.map((c) => ({
    principal: {
      kind: c.principal.kind,
      arn: c.principal.arn ?? '',
      name: c.principal.name,
      issuer: c.principal.issuer ?? '',
    },
    how: c.how,
    event_name: c.eventName,
    event_source: c.eventSource,
    time: c.at.toISOString(),
    resource: c.resource ?? '',
  }));
}

/** Changes one attribution keeps at most: drift nobody deals with gathers events check after check. */
export const ATTRIBUTED_CHANGES_KEPT = 50;

/**
 * What an earlier check knew of who changed a stack's drift, for the resources that still drift: a
 * resource whose drift ended (reverted, applied) takes its authors with it, and a call the index could not
 * tie to a resource says nothing about today's drift. Only the calls found carry over: what that check
 * could not ask about was its own to say.
 */
export function stillDrifting(earlier: Attribution | undefined, drifted: ReadonlySet<string>): Attribution | undefined {
  if (earlier?.status !== 'found') return undefined;
  const changes = earlier.changes.filter((c) => c.resource !== undefined && drifted.has(c.resource));
  return changes.length ? { status: 'found', changes } : undefined;
}

/**
 * What was known of who changed a drift, with what was just learned: each call once, oldest first, the
 * newest kept. An answer that found nothing never hides one that did, and CloudTrail not answering about
 * some of the resources stays said.
 */
export function mergeAttributions(
  earlier: Attribution | undefined,
  later: Attribution | undefined,
): Attribution | undefined {
  const found = [earlier, later].filter((a) => a?.status === 'found') as Extract<Attribution, { status: 'found' }>[];
  if (found.length === 0) return later ?? earlier;
  const unanswered = [earlier, later].some((a) => a?.status === 'unknown' || (a?.status === 'found' && a.unanswered));
  const byEvent = new Map<string, AttributedChange>();
  for (const change of found.flatMap((a) => a.changes)) byEvent.set(change.eventId, change);
  const changes = [...byEvent.values()].sort((a, b) => a.at.getTime() - b.at.getTime());
  const notLookedUp = later && later.status !== 'unknown' ? later.notLookedUp : undefined;
  return {
    status: 'found',
    changes: changes.slice(-ATTRIBUTED_CHANGES_KEPT),
    ...(unanswered ? { unanswered } : {}),
    ...(notLookedUp ? { notLookedUp } : {}),
  };
}
