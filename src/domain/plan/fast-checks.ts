/**
 * Allocation-free checks of a plan document and of the items it holds by the ten thousand (resource
 * changes, state resources). They mirror the zod schemas in schema.ts, which stay the definition: what
 * these reject is handed to zod, which either explains the error or, if the two ever disagree, accepts
 * it. fast-checks.test.ts holds them to agreement.
 */
const ACTIONS = new Set(['no-op', 'create', 'read', 'update', 'delete', 'forget']);

type Record_ = Record<string, unknown>;

function isRecord(value: unknown): value is Record_ {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

function isPathList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const path of value) {
    if (!Array.isArray(path)) return false;
    for (const step of path) if (typeof step !== 'string' && typeof step !== 'number') return false;
  }
  return true;
}

function optionalBoolean(value: unknown): boolean {
  return value === undefined || typeof value === 'boolean';
}

function optionalArray(value: unknown): boolean {
  return value === undefined || Array.isArray(value);
}

function optionalArrayOf(value: unknown, item: (v: unknown) => boolean): boolean {
  return value === undefined || (Array.isArray(value) && value.every(item));
}

function isRelevantAttribute(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.resource === 'string' &&
    Array.isArray(value.attribute) &&
    value.attribute.every((s) => typeof s === 'string' || typeof s === 'number')
  );
}

/** `undefined`, or an object whose every member passes `item`. */
function optionalRecordOf(value: unknown, item: (member: unknown) => boolean): boolean {
  if (value === undefined) return true;
  if (!isRecord(value)) return false;
  for (const key in value) if (!item(value[key])) return false;
  return true;
}

function hasActions(change: Record_): boolean {
  const actions = change.actions;
  if (!Array.isArray(actions) || actions.length === 0) return false;
  for (const action of actions) if (!ACTIONS.has(action as string)) return false;
  return true;
}

function isChange(change: unknown): boolean {
  if (!isRecord(change) || !hasActions(change)) return false;
  if (change.replace_paths !== undefined && !isPathList(change.replace_paths)) return false;
  const importing = change.importing;
  return importing === undefined || (isRecord(importing) && optionalString(importing.id));
}

export function isResourceChange(item: unknown): boolean {
  if (!isRecord(item)) return false;
  const index = item.index;
  return (
    typeof item.address === 'string' &&
    typeof item.type === 'string' &&
    typeof item.name === 'string' &&
    typeof item.provider_name === 'string' &&
    (item.mode === 'managed' || item.mode === 'data') &&
    optionalString(item.previous_address) &&
    optionalString(item.module_address) &&
    optionalString(item.deposed) &&
    optionalString(item.action_reason) &&
    (index === undefined || typeof index === 'string' || typeof index === 'number') &&
    isChange(item.change)
  );
}

export function isStateResource(item: unknown): boolean {
  return isRecord(item) && typeof item.address === 'string' && typeof item.mode === 'string';
}

export function isStateModuleShell(module: unknown): boolean {
  return isRecord(module) && optionalArray(module.resources) && optionalArray(module.child_modules);
}

function isOutputChange(change: unknown): boolean {
  return isRecord(change) && hasActions(change);
}

function isSensitiveFlagged(item: unknown): boolean {
  return isRecord(item) && optionalBoolean(item.sensitive);
}

function isModuleCall(call: unknown): boolean {
  return (
    isRecord(call) &&
    optionalRecordOf(call.expressions, () => true) &&
    (call.module === undefined || isModuleConfig(call.module))
  );
}

function isModuleConfig(module: unknown): boolean {
  return (
    isRecord(module) &&
    optionalRecordOf(module.variables, isSensitiveFlagged) &&
    optionalRecordOf(module.module_calls, isModuleCall)
  );
}

function isPriorState(state: unknown): boolean {
  if (state === undefined) return true;
  if (!isRecord(state)) return false;
  const values = state.values;
  return values === undefined || (isRecord(values) && optionalRecordOf(values.outputs, isSensitiveFlagged));
}

/** The document without its bulk lists' items (schema.ts's PlanShellSchema). */
export function isPlanShell(plan: unknown): boolean {
  if (!isRecord(plan)) return false;
  const configuration = plan.configuration;
  return (
    typeof plan.format_version === 'string' &&
    plan.format_version.startsWith('1.') &&
    typeof plan.terraform_version === 'string' &&
    optionalRecordOf(plan.variables, isRecord) &&
    optionalArray(plan.resource_changes) &&
    optionalArray(plan.resource_drift) &&
    optionalArrayOf(plan.relevant_attributes, isRelevantAttribute) &&
    optionalRecordOf(plan.output_changes, isOutputChange) &&
    isPriorState(plan.prior_state) &&
    (configuration === undefined ||
      (isRecord(configuration) &&
        (configuration.root_module === undefined || isModuleConfig(configuration.root_module)))) &&
    optionalBoolean(plan.errored) &&
    optionalBoolean(plan.applyable) &&
    optionalBoolean(plan.complete)
  );
}
