import { formatPath, type PathSegment } from '../domain/plan/paths.js';

export type { PathSegment };

/**
 * `['stacks', 2, 'schedule']` -> `stacks[2].schedule`: the same notation as plan attribute paths, so
 * ambiguous keys are quoted (`stacks[0].vars["a.b"]`). zod paths may hold symbols; none of ours do.
 */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  return formatPath(path.map((seg) => (typeof seg === 'symbol' ? String(seg) : seg)));
}

/** The value at `path` inside a plain JSON-like value (own properties only), or undefined. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (!Object.hasOwn(cur, seg)) return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg];
  }
  return cur;
}
