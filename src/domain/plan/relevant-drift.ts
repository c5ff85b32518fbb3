/**
 * Which of refresh's `resource_drift` entries are drift a person must hear about. Refresh reports every
 * difference between the state and what the provider read back, including a provider normalising a value
 * (`tags` null in state, `{}` read back) on a resource whose plan is a no-op. terraform's own renderer
 * shows only the outside changes relevant to the plan; driftgate counts, alerts, pages, attributes and
 * hands to policies the same: a resource created or deleted outside terraform, or an update whose changed
 * attributes the plan will change back or `relevant_attributes` names. The full list stays in the plan.
 */
import type { PlanJson, PlanResourceChange } from './schema.js';

type Path = readonly (string | number)[];

/** null, an empty map, list or string: what a provider may read back for "nothing set". */
function empty(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The paths where `before` and `after` differ by more than "nothing set" written another way. */
export function changedPaths(before: unknown, after: unknown, at: Path = []): Path[] {
  if (empty(before) && empty(after)) return [];
  if (Array.isArray(before) && Array.isArray(after)) {
    if (before.length !== after.length) return [at];
    return before.flatMap((item, i) => changedPaths(item, after[i], [...at, i]));
  }
  if (isObject(before) && isObject(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    return [...keys].flatMap((key) => changedPaths(before[key], after[key], [...at, key]));
  }
  return Object.is(before, after) ? [] : [at];
}

/** One path is the other or lies under it. */
const overlaps = (a: Path, b: Path) =>
  a.slice(0, b.length).every((s, i) => s === b[i]) || b.slice(0, a.length).every((s, i) => s === a[i]);

export interface DriftRelevance {
  /** What counts as drift. */
  relevant: PlanResourceChange[];
  /** Addresses whose outside change is noise: the plan neither changes it back nor depends on it. */
  notRelevant: string[];
}

export function relevantDrift(
  plan: Pick<PlanJson, 'resource_drift' | 'resource_changes' | 'relevant_attributes'>,
): DriftRelevance {
  const out: DriftRelevance = { relevant: [], notRelevant: [] };
  const drifted = new Set((plan.resource_drift ?? []).map((d) => d.address));
  if (drifted.size === 0) return out;
  // Only the drifted resources' planned changes are diffed: a large plan's others cost a lookup each.
  const planned = new Map<string, Path[]>();
  for (const rc of plan.resource_changes ?? []) {
    if (!drifted.has(rc.address)) continue;
    const paths = changedPaths(rc.change.before, rc.change.after);
    if (paths.length > 0) planned.set(rc.address, paths);
  }
  const named = new Map<string, Path[]>();
  for (const ra of plan.relevant_attributes ?? [])
    if (drifted.has(ra.resource)) named.set(ra.resource, [...(named.get(ra.resource) ?? []), ra.attribute]);

  for (const drift of plan.resource_drift ?? []) {
    const actions = drift.change.actions;
    const madeOrGone = actions.includes('create') || actions.includes('delete');
    const changed = changedPaths(drift.change.before, drift.change.after);
    const watched = [...(planned.get(drift.address) ?? []), ...(named.get(drift.address) ?? [])];
    const relevant = madeOrGone || changed.some((path) => watched.some((w) => overlaps(path, w)));
    if (relevant) out.relevant.push(drift);
    else out.notRelevant.push(drift.address);
  }
  return out;
}
