/**
 * Parsed plan JSON -> the input every rule reads, masked the way the plan analysis masks: values
 * terraform marks sensitive, and unmarked copies of a secret, are "(sensitive value)" (mask.ts), and
 * changed attributes are the analysis's attribute paths (diff.ts). A policy never sees a secret, so no
 * message rendered from it can show one.
 */
import { relevantDrift } from '../plan/relevant-drift.js';
import { DiffWalker } from '../plan/diff.js';
import { maskSide } from '../plan/mask.js';
import { SENSITIVE_PLACEHOLDER, UNKNOWN_PLACEHOLDER, type Redactor } from '../plan/model.js';
import type { PlanJson, PlanResourceChange } from '../plan/schema.js';
import type { PolicyChange } from '../change-events/attribution.js';
import type { PolicyCause } from '../drift-causes/describe.js';
import type { RunKind } from '../run/state.js';
import type { PolicyInput, PolicyResourceChange } from './model.js';

export interface PolicyStack {
  name: string;
  /** `stack.environment` is "" when the stack has none, so that `stack.environment != "prod"` reads as meant. */
  environment?: string;
  labels: readonly string[];
}

/** One side of a change as plain JSON, masked: absent is null, a wholly sensitive value the placeholder. */
function side(value: unknown, sensitive: unknown, redactor: Redactor): unknown {
  const masked = maskSide(value, sensitive, undefined, redactor);
  switch (masked.kind) {
    case 'value':
      return masked.value;
    case 'sensitive':
      return SENSITIVE_PLACEHOLDER;
    case 'unknown':
      return UNKNOWN_PLACEHOLDER;
    case 'absent':
      return null;
  }
}

/** As in the analysis, a no-op is left out unless it moves or imports: applying those changes state. */
function toPolicyChange(
  rc: PlanResourceChange,
  redactor: Redactor,
  walker: DiffWalker,
): PolicyResourceChange | undefined {
  const { change } = rc;
  const moved = rc.previous_address !== undefined && rc.previous_address !== rc.address;
  const importing = change.importing !== undefined;
  if (change.actions.length === 1 && change.actions[0] === 'no-op' && !moved && !importing) return undefined;
  const attributes = walker.diff({
    before: change.before,
    after: change.after,
    beforeSensitive: change.before_sensitive,
    afterSensitive: change.after_sensitive,
    afterUnknown: change.after_unknown,
    replacePaths: [],
  });
  const out: PolicyResourceChange = {
    address: redactor.redact(rc.address),
    type: rc.type,
    name: rc.name,
    mode: rc.mode,
    provider_name: rc.provider_name,
    actions: [...change.actions],
    before: side(change.before, change.before_sensitive, redactor),
    after: side(change.after, change.after_sensitive, redactor),
    changed_attributes: attributes.map((a) => a.path),
  };
  // Keys are left out rather than set to undefined: CEL reads an undefined member as "No such key".
  if (rc.module_address !== undefined) out.module_address = redactor.redact(rc.module_address);
  if (moved) out.previous_address = redactor.redact(rc.previous_address!);
  if (importing) out.importing = true;
  return out;
}

function toPolicyChanges(
  list: readonly PlanResourceChange[] | undefined,
  redactor: Redactor,
  walker: DiffWalker,
): PolicyResourceChange[] {
  const out: PolicyResourceChange[] = [];
  for (const rc of list ?? []) {
    const change = toPolicyChange(rc, redactor, walker);
    if (change) out.push(change);
  }
  return out;
}

/** `redactor` is the one analyzePlan returned for this plan: it knows the plan's secrets by value. */
export function buildPolicyInput(
  plan: PlanJson,
  redactor: Redactor,
  stack: PolicyStack,
  kind: RunKind,
  changes: PolicyChange[] = [],
  causes: PolicyCause[] = [],
): PolicyInput {
  const walker = new DiffWalker(redactor);
  return {
    terraform: {
      resource_changes: toPolicyChanges(plan.resource_changes, redactor, walker),
      resource_drift: toPolicyChanges(relevantDrift(plan).relevant, redactor, walker),
    },
    stack: { name: stack.name, environment: stack.environment ?? '', labels: [...stack.labels] },
    run: { kind },
    drift: { changes, causes },
  };
}
