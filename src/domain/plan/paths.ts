/**
 * Attribute paths in the notation terraform users read: `tags.Name`, `ingress[0].cidr_blocks[1]`,
 * `input["a.b"]`. Used for attribute diffs and for locating errors in plan JSON alike.
 */
export type PathSegment = string | number;

/** HCL identifiers may hold dashes; anything else (dots, spaces, leading digits) gets quoted. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** True when one path is a prefix of the other (an attribute under, or holding, a replace path). */
export function pathsOverlap(a: readonly PathSegment[], b: readonly PathSegment[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}
