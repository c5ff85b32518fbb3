/**
 * Which attributes of a drifted resource the code disagrees with: the leaves that changed out of band
 * (resource_drift) and that applying would change back (resource_changes). A drift the code already
 * agrees with (an unset map read back as `{}`) is nothing to codify.
 */
import { DiffWalker } from '../plan/diff.js';
import { childMark, childValue, isAbsent } from '../plan/mask.js';
import type { Redactor } from '../plan/model.js';
import { formatPath, pathsOverlap, type PathSegment } from '../plan/paths.js';
import type { PlanResourceChange } from '../plan/schema.js';

/** Paths are compared before any masking; each value is checked against the redactor afterwards. */
const NO_REDACTION: Redactor = {
  redact: (text) => text,
  redactInside: (text) => text,
  redactValue: (value) => value,
  size: 0,
};

export function valueAt(value: unknown, segments: readonly PathSegment[]): unknown {
  return segments.reduce<unknown>((v, s) => childValue(v, s), value);
}

function markAt(mark: unknown, segments: readonly PathSegment[]): unknown {
  return segments.reduce<unknown>((m, s) => childMark(m, s), mark);
}

function anyTrue(mark: unknown): boolean {
  if (mark === true) return true;
  return typeof mark === 'object' && mark !== null && Object.values(mark).some(anyTrue);
}

/**
 * A leaf under a list that changed length, or a map key removed out of band, cannot be written on its
 * own: the list, or the map, is the unit to rewrite.
 */
function liftPath(segments: readonly PathSegment[], real: unknown, code: unknown): PathSegment[] {
  for (let i = 1; i < segments.length; i++) {
    if (typeof segments[i] !== 'number') continue;
    const r = valueAt(real, segments.slice(0, i));
    const c = valueAt(code, segments.slice(0, i));
    if (!Array.isArray(r) || !Array.isArray(c) || r.length !== c.length) return segments.slice(0, i);
  }
  if (segments.length > 1 && isAbsent(valueAt(real, segments))) return segments.slice(0, -1);
  return [...segments];
}

export interface DriftedAttributes {
  /** Attribute paths to bring the code to, deduplicated, in the plan's order. */
  paths: PathSegment[][];
  /** The real-world value (resource_drift's `after`) at a path. */
  real(segments: readonly PathSegment[]): unknown;
  /** What the code gives at a path (resource_changes' `after`). */
  code(segments: readonly PathSegment[]): unknown;
  /** Marked sensitive on either side, or holding (or named by) a string the redactor masks. */
  sensitive(segments: readonly PathSegment[]): boolean;
  /** Unknown until apply: the provider computes it. */
  computed(segments: readonly PathSegment[]): boolean;
}

export function driftedAttributes(
  drift: PlanResourceChange,
  planned: PlanResourceChange,
  redactor: Redactor,
): DriftedAttributes {
  const walker = new DiffWalker(NO_REDACTION);
  const sides = (c: PlanResourceChange['change']) => ({
    before: c.before,
    after: c.after,
    beforeSensitive: c.before_sensitive,
    afterSensitive: c.after_sensitive,
    afterUnknown: c.after_unknown,
    replacePaths: [],
  });
  const drifted = walker.diff(sides(drift.change)).map((a) => a.segments);
  const real = drift.change.after;
  const code = planned.change.after;
  const paths = new Map<string, PathSegment[]>();
  for (const leaf of walker.diff(sides(planned.change))) {
    if (!drifted.some((d) => pathsOverlap(d, leaf.segments))) continue;
    const lifted = liftPath(leaf.segments, real, code);
    paths.set(formatPath(lifted), lifted);
  }
  const marks = [
    drift.change.before_sensitive,
    drift.change.after_sensitive,
    planned.change.before_sensitive,
    planned.change.after_sensitive,
  ];
  const masked = (value: unknown) => JSON.stringify(redactor.redactValue(value)) !== JSON.stringify(value);
  return {
    paths: [...paths.values()],
    real: (segments) => valueAt(real, segments),
    code: (segments) => valueAt(code, segments),
    sensitive: (segments) =>
      marks.some((m) => anyTrue(markAt(m, segments))) ||
      segments.some((s) => typeof s === 'string' && redactor.redact(s) !== s) ||
      masked(valueAt(real, segments) ?? null) ||
      masked(valueAt(code, segments) ?? null),
    computed: (segments) => anyTrue(markAt(planned.change.after_unknown, segments)),
  };
}
