import type { Classification } from './classify.js';
import type { CheckDebouncer } from './debounce.js';
import { type ChangeDescription, describeChange } from './describe.js';
import { identifiersOf } from './identifiers.js';
import type { ResourceIndex, ResourceRef } from './resource-index.js';
import type { ChangeEvent } from './schema.js';
import { namedResources, type UnmatchedChange } from './unmatched.js';

/**
 * What happens to one change event, whichever way it came in (Slack or the CLI) (push, SQS): classified, matched
 * against the resource index, and handed to the debouncer for the stacks it names. Pure: the receivers
 * parse, the debouncer's `onDue` queues the checks.
 */

/** A described change with the resource it touched: what a check request carries per event. */
export interface MatchedChange extends ChangeDescription {
  resources: ResourceRef[];
}

export type IntakeOutcome =
  | { kind: 'ignored'; classification: Exclude<Classification, { kind: 'relevant' }> }
  | { kind: 'unmatched'; change: UnmatchedChange; identifiers: string[] }
  | { kind: 'queued'; change: MatchedChange; stacks: { stack: string; result: string }[] };

export interface IntakeDeps {
  classify: (event: ChangeEvent) => Classification;
  index: ResourceIndex;
  debouncer: CheckDebouncer<MatchedChange>;
}

export function ignoredReason(classification: Exclude<Classification, { kind: 'relevant' }>): string {
  return classification.reason === 'automation' ? `automation:${classification.rule}` : classification.reason;
}

export function takeChangeEvent(deps: IntakeDeps, event: ChangeEvent): IntakeOutcome {
  const classification = deps.classify(event);
  if (classification.kind === 'ignored') {
    deps.debouncer.countIgnored(ignoredReason(classification));
    return { kind: 'ignored', classification };
  }
  const identifiers = identifiersOf(event);
  const matches = deps.index.match(identifiers);
  const change = describeChange(event);
  if (matches.length === 0) {
    deps.debouncer.countUnmatched();
    return { kind: 'unmatched', change: { ...change, resources: namedResources(event) }, identifiers };
  }
  const matched: MatchedChange = { ...change, resources: matches };
  const results = deps.debouncer.offer(matches, matched);
  const stacks = [...new Set(matches.map((m) => m.stack))].map((stack, i) => ({ stack, result: results[i]! }));
  return { kind: 'queued', change: matched, stacks };
}

/**
 * Matched changes kept per stack for its next check (its attribution), the latest: a console session's
 * burst beyond them was coalesced into the same check, and the earlier ones are counted, not kept.
 */
export const PENDING_CHANGES_PER_STACK = 50;
