import { type AttributedChange, type Attribution, mergeAttributions } from '../../domain/change-events/attribution.js';
import type { Classification } from '../../domain/change-events/classify.js';
import { describeChange } from '../../domain/change-events/describe.js';
import { identifiersOf } from '../../domain/change-events/identifiers.js';
import type { MatchedChange } from '../../domain/change-events/intake.js';
import type { ResourceIndex } from '../../domain/change-events/resource-index.js';
import { attributedAddresses } from '../../domain/change-events/state-address.js';
import type { ChangeEvent } from '../../domain/change-events/schema.js';
import { errorMessage } from '../../domain/errors.js';
import type { ChangeHistory } from '../../ports/change-history.js';
import type { ServiceDeps } from '../runtime/deps.js';

/**
 * Who changed a stack's drifted resources. First the change events kept for the check (in the store per
 * stack, up to the check's mark, wherever it runs); for drifted resources they do not name, the cloud's
 * audit log (CloudTrail LookupEvents) from the stack's last clean check on. The audit log or the store
 * failing costs only the answer ("unknown"), never the alert, and a slow one is not waited for past
 * `timeoutMs`.
 */

export interface AttributeDriftDeps extends Pick<ServiceDeps, 'logger' | 'now'> {
  /** The store keeps the changes waiting for a stack's next check (`readPendingChanges`). */
  store: Pick<ServiceDeps['store'], 'listRuns' | 'readPendingChanges'>;
  index: ResourceIndex;
  classify: (event: ChangeEvent) => Classification;
  /** Absent: CloudTrail lookups are off. */
  history?: ChangeHistory;
  /** The audit log to ask about one stack's resources (its pool's, with the agent API); before `history`. */
  historyFor?: (stack: string) => ChangeHistory | undefined;
  /** Resources looked up per check at most (each lookup is rate-limited by the cloud). */
  maxLookups?: number;
  timeoutMs?: number;
}

/** CloudTrail keeps 90 days of management events: there is nothing to ask for before that. */
const LOOKBACK_MS = 90 * 24 * 3600 * 1000;

/**
 * Each call is attributed to the first resource of the stack it names: the index matches in the order
 * the event names identifiers (its resource ARNs first), and a call on an object names its bucket after it.
 */
function fromEvents(stack: string, changes: MatchedChange[], drifted: ReadonlySet<string>): AttributedChange[] {
  const out: AttributedChange[] = [];
  for (const { resources, ...change } of changes) {
    const named = resources.find((r) => r.stack === stack);
    if (named && drifted.has(named.address)) out.push({ ...change, resource: named.address });
  }
  return out;
}

/**
 * The names CloudTrail's ResourceName may know a resource by, in the order asked: its plain identifier
 * (an instance's `i-0abc…`, a bucket's name: what most services record), then its ARN (what others, such
 * as KMS, record).
 */
function lookupNames(identifiers: readonly string[]): string[] {
  const plain = identifiers.find((id) => !id.startsWith('arn:'));
  const arn = identifiers.find((id) => id.startsWith('arn:'));
  return [plain, arn].filter((name): name is string => name !== undefined);
}

export function createDriftAttributor(deps: AttributeDriftDeps) {
  const maxLookups = deps.maxLookups ?? 5;
  const timeoutMs = deps.timeoutMs ?? 30_000;

  async function lookUp(
    history: ChangeHistory,
    stack: string,
    drifted: ReadonlySet<string>,
    signal: AbortSignal,
  ): Promise<Attribution> {
    const lastClean = (await deps.store.listRuns({ stack, states: ['no_changes'], limit: 1 }))[0]?.createdAt;
    const since = new Date(Math.max(lastClean?.getTime() ?? 0, deps.now().getTime() - LOOKBACK_MS));
    const candidates = deps.index.resourcesOf(stack).filter((r) => drifted.has(r.address));
    const targets = candidates.slice(0, maxLookups);
    const left = candidates.length - targets.length;
    const notLookedUp = left > 0 ? { notLookedUp: left } : {};
    const seen = new Set<string>();
    const changes: AttributedChange[] = [];
    /** The calls among `events` that changed a drifted resource of the stack, each once. */
    const attributed = (events: readonly ChangeEvent[]): AttributedChange[] =>
      events.flatMap((event) => {
        if (seen.has(event.record.eventID) || deps.classify(event).kind === 'ignored') return [];
        // A lookup by a bucket's name also returns calls on its objects: each call is the stack's resource
        // it names first, as for the events that queue a check, and counts only if that one drifted.
        const named = deps.index.match(identifiersOf(event)).find((r) => r.stack === stack);
        if (!named || !drifted.has(named.address)) return [];
        seen.add(event.record.eventID);
        return [{ ...describeChange(event), resource: named.address }];
      });
    for (const target of targets) {
      // By its plain name, then its ARN unless that found who changed it (reads and driftgate's own
      // calls under the name say nothing).
      for (const name of lookupNames(target.identifiers)) {
        const found = attributed((await history.changesTo(name, since, { signal })).events);
        changes.push(...found);
        if (found.length) break;
      }
    }
    return changes.length ? { status: 'found', changes, ...notLookedUp } : { status: 'none', ...notLookedUp };
  }

  /** The changes kept for the stack up to the check's mark; what cannot be read costs only the answer. */
  async function waitingChanges(stack: string, upTo: number): Promise<MatchedChange[]> {
    try {
      const { changes, unreadable } = await deps.store.readPendingChanges(stack, upTo);
      if (unreadable)
        deps.logger.warn({ stack, unreadable }, 'waiting changes another version wrote could not be read: skipped');
      return changes;
    } catch (err) {
      deps.logger.warn({ stack, err: errorMessage(err) }, 'the changes waiting for this check were not read');
      return [];
    }
  }

  async function lookUpWithin(
    history: ChangeHistory,
    stack: string,
    resources: ReadonlySet<string>,
  ): Promise<Attribution> {
    // Given up on after `timeoutMs`: the lookups under way are cancelled, and no more are made (they
    // would hold the account's rate limit from the next checks' lookups).
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const reason = new Error(`no answer within ${timeoutMs} ms`);
        controller.abort(reason);
        reject(reason);
      }, timeoutMs);
    });
    try {
      return await Promise.race([lookUp(history, stack, resources, controller.signal), timedOut]);
    } catch (err) {
      deps.logger.warn({ stack, err: errorMessage(err) }, 'CloudTrail did not answer: the alert goes out without who');
      return { status: 'unknown' };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * `upTo`: the check's mark of the waiting changes (none: none are read). `lookUp: false`: the cloud's
   * audit log is not asked (drift already attributed). The events also name who wrote the stack's state
   * object (STATE_ADDRESS), drift or not: CloudTrail's LookupEvents holds no S3 object writes to ask.
   */
  return async (
    stack: string,
    driftedList: readonly string[],
    options: { lookUp?: boolean; upTo?: number } = {},
  ): Promise<Attribution | undefined> => {
    const drifted = new Set(driftedList);
    const waiting = options.upTo ? await waitingChanges(stack, options.upTo) : [];
    const fromPush = fromEvents(stack, waiting, attributedAddresses(drifted));
    const found: Attribution | undefined = fromPush.length ? { status: 'found', changes: fromPush } : undefined;
    // Events may name some of the drifted resources: CloudTrail is asked about the others.
    const named = new Set(fromPush.map((c) => c.resource));
    const unnamed = new Set([...drifted].filter((address) => !named.has(address)));
    const history = deps.historyFor?.(stack) ?? deps.history;
    if (!history || options.lookUp === false || unnamed.size === 0) return found;
    return mergeAttributions(found, await lookUpWithin(history, stack, unnamed));
  };
}
