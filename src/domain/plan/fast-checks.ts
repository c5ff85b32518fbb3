/**
 * Allocation-free checks of the items a plan holds by the ten thousand (resource changes, state
 * resources). They mirror the zod schemas in schema.ts, which stay the definition: an item these
 * reject is handed to zod, which either explains the error or, if the two ever disagree, accepts it.
 * fast-checks.test.ts holds them to agreement.
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

function isChange(change: unknown): boolean {
  if (!isRecord(change)) return false;
  const actions = change.actions;
  if (!Array.isArray(actions) || actions.length === 0) return false;
  for (const action of actions) if (!ACTIONS.has(action as string)) return false;
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
