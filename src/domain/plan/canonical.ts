/** JSON values in one canonical form, so that equal values serialise to equal text. */

/**
 * A copy of a JSON value with object keys sorted at every level (undefined members dropped). Built with
 * Object.fromEntries: a map key `__proto__` (JSON allows it) stays a key instead of a prototype.
 */
export function canonicalValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(canonicalValue);
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => [key, canonicalValue(record[key])]),
  );
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonicalValue(value)) ?? 'null';
}
