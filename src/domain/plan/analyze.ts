/**
 * From parsed plan JSON to a PlanAnalysis in which every value is masked: by terraform's sensitivity
 * marks, and by value for unmarked copies of a secret. Pure: the redactor it returns is for the
 * caller's other texts (terraform's stderr, logs) and lives in memory only.
 */
import { relevantDrift } from './relevant-drift.js';
import { normalizeActions } from './actions.js';
import { DiffWalker } from './diff.js';
import { fingerprintChanges } from './fingerprint.js';
import { maskSide } from './mask.js';
import type { ActionCounts, OutputChange, PlanAnalysis, Redactor, ResourceChange } from './model.js';
import { formatPath } from './paths.js';
import { collectSecrets, createRedactor, withMirroredMarks } from './redact.js';
import type { PlanJson, PlanOutputChange, PlanResourceChange, PlanStateModule } from './schema.js';

const NO_PATHS: readonly (readonly (string | number)[])[] = Object.freeze([]);

/**
 * No-op changes are left out, except moves and imports: applying those changes terraform's state,
 * so the plan is not empty (terraform itself counts them as changes).
 */
function toResourceChange(
  rc: PlanResourceChange,
  where: string,
  redactor: Redactor,
  walker: DiffWalker,
): ResourceChange | undefined {
  const { action, replaceOrder, forget } = normalizeActions(rc.change.actions, `${where}.change`);
  const previousAddress =
    rc.previous_address !== undefined && rc.previous_address !== rc.address ? rc.previous_address : undefined;
  const importing = rc.change.importing !== undefined;
  if (action === 'no-op' && !previousAddress && !importing) return undefined;
  const replacePaths = rc.change.replace_paths ?? NO_PATHS;
  const change: ResourceChange = {
    address: redactor.redact(rc.address),
    mode: rc.mode,
    type: rc.type,
    name: rc.name,
    providerName: rc.provider_name,
    action,
    attributes: walker.diff({
      before: rc.change.before,
      after: rc.change.after,
      beforeSensitive: withMirroredMarks(rc.type, rc.change.before_sensitive),
      afterSensitive: withMirroredMarks(rc.type, rc.change.after_sensitive, rc.change.after_unknown),
      afterUnknown: rc.change.after_unknown,
      replacePaths,
    }),
    replacePaths: replacePaths.length === 0 ? [] : replacePaths.map((p) => redactor.redact(formatPath(p))),
  };
  if (rc.module_address !== undefined) change.moduleAddress = rc.module_address;
  if (rc.index !== undefined) change.index = typeof rc.index === 'string' ? redactor.redact(rc.index) : rc.index;
  if (replaceOrder) change.replaceOrder = replaceOrder;
  const reason = rc.action_reason ?? (forget ? 'forget' : undefined);
  if (reason !== undefined) change.actionReason = reason;
  if (previousAddress) change.previousAddress = redactor.redact(previousAddress);
  if (importing) change.importing = true;
  return change;
}

function toResourceChanges(
  list: PlanResourceChange[] | undefined,
  field: string,
  redactor: Redactor,
): ResourceChange[] {
  const out: ResourceChange[] = [];
  const walker = new DiffWalker(redactor, { jsonDiffs: true });
  list?.forEach((rc, i) => {
    const change = toResourceChange(rc, `${field}[${i}]`, redactor, walker);
    if (change) out.push(change);
  });
  return out;
}

function toOutputChange(name: string, oc: PlanOutputChange, redactor: Redactor): OutputChange | undefined {
  const { action } = normalizeActions(oc.actions, `output_changes[${JSON.stringify(name)}]`);
  if (action === 'no-op') return undefined;
  return {
    name,
    action,
    before: maskSide(oc.before, oc.before_sensitive, undefined, redactor),
    after: maskSide(oc.after, oc.after_sensitive, oc.after_unknown, redactor),
    sensitive: oc.before_sensitive === true || oc.after_sensitive === true,
  };
}

export function countActions(changes: readonly ResourceChange[]): ActionCounts {
  const counts: ActionCounts = { create: 0, update: 0, delete: 0, replace: 0, read: 0 };
  for (const change of changes) if (change.action !== 'no-op') counts[change.action]++;
  return counts;
}

/** Managed resource instances only: data sources are reads, not infrastructure. */
function countStateResources(module: PlanStateModule | undefined): number {
  if (!module) return 0;
  let n = 0;
  for (const resource of module.resources ?? []) if (resource.mode === 'managed') n++;
  for (const child of module.child_modules ?? []) n += countStateResources(child);
  return n;
}

export function analyzePlan(plan: PlanJson): { analysis: PlanAnalysis; redactor: Redactor } {
  const redactor = createRedactor(collectSecrets(plan));
  const changes = toResourceChanges(plan.resource_changes, 'resource_changes', redactor);
  // Refresh's normalisation noise is not drift (relevant-drift.ts); it stays in the plan file.
  const { relevant, notRelevant } = relevantDrift(plan);
  const drift = toResourceChanges(relevant, 'resource_drift', redactor);
  const outputs: OutputChange[] = [];
  for (const name of Object.keys(plan.output_changes ?? {}).sort()) {
    const output = toOutputChange(name, plan.output_changes![name]!, redactor);
    if (output) outputs.push(output);
  }
  const analysis: PlanAnalysis = {
    terraformVersion: plan.terraform_version,
    formatVersion: plan.format_version,
    changes,
    drift,
    ...(notRelevant.length > 0 ? { driftNotRelevant: notRelevant } : {}),
    outputs,
    counts: countActions(changes),
    hasChanges: changes.length > 0 || outputs.length > 0,
    fingerprint: fingerprintChanges({ changes, drift, outputs }),
    resourceCount: countStateResources(plan.prior_state?.values?.root_module),
    applyable: plan.errored !== true && plan.applyable !== false,
  };
  return { analysis, redactor };
}

/**
 * A plan terraform reported unchanged (`-detailed-exitcode` 0), without reading its JSON: most checks of
 * a fleet find nothing, and `show -json` would cost as much CPU again as the plan's own work.
 */
export function noChangesAnalysis(terraformVersion: string): PlanAnalysis {
  return {
    terraformVersion,
    formatVersion: '',
    changes: [],
    drift: [],
    outputs: [],
    counts: countActions([]),
    hasChanges: false,
    fingerprint: fingerprintChanges({ changes: [], drift: [], outputs: [] }),
    resourceCount: 0,
    applyable: false,
  };
}
