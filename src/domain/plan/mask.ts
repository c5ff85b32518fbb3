/**
 * Turns one side of a change into a DiffValue, masked by mark and by value. Marks follow terraform's
 * shape convention: `true` covers the whole value beneath, an object/array of the value's shape marks
 * parts of it.
 */
import { canonicalValue } from './canonical.js';
import { SENSITIVE_PLACEHOLDER, UNKNOWN_PLACEHOLDER, type DiffValue, type Redactor } from './model.js';

// Shared, frozen: a 10,000-resource plan has tens of thousands of these, and allocation is its main cost.
export const ABSENT: DiffValue = Object.freeze({ kind: 'absent' });
export const UNKNOWN: DiffValue = Object.freeze({ kind: 'unknown' });
export const SENSITIVE: DiffValue = Object.freeze({ kind: 'sensitive' });

export function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/** A mark's entry for a key or index: `true` covers everything beneath it. */
export function childMark(mark: unknown, key: string | number): unknown {
  if (mark === true) return true;
  return childValue(mark, key);
}

/** A child of a JSON value, `undefined` where there is none (own members only: `__proto__` is a key). */
export function childValue(value: unknown, key: string | number): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  if (typeof key === 'number') return Array.isArray(value) ? value[key] : undefined;
  return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

/**
 * Replaces the parts of `value` where `mark` is true with `placeholder`. Copies only along the way to
 * a replaced part: most marks of a large plan are all-false shapes, and they cost no allocation.
 */
function overlay(value: unknown, mark: unknown, placeholder: string): unknown {
  if (mark === true) return placeholder;
  if (typeof mark !== 'object' || mark === null || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = overlay(value[i], childMark(mark, i), placeholder);
      if (item !== value[i]) (out ??= value.slice())[i] = item;
    }
    return out ?? value;
  }
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const original = (value as Record<string, unknown>)[key];
    const item = overlay(original, childMark(mark, key), placeholder);
    if (item !== original) (out ??= { ...value })[key] = item;
  }
  return out ?? value;
}

export function maskSide(value: unknown, sensitive: unknown, unknown: unknown, redactor: Redactor): DiffValue {
  if (sensitive === true) return SENSITIVE;
  if (unknown === true) return UNKNOWN;
  if (isAbsent(value)) return ABSENT;
  let shown: unknown = value;
  if (typeof value === 'object') {
    shown = overlay(value, sensitive, SENSITIVE_PLACEHOLDER);
    shown = overlay(shown, unknown, UNKNOWN_PLACEHOLDER);
  }
  shown = redactor.redactValue(shown);
  // Objects are stored with sorted keys, so equal values serialise alike (the fingerprint relies on it).
  if (typeof shown === 'object') shown = canonicalValue(shown);
  // An unmarked copy of a whole secret, of any type, is as sensitive as the original.
  return shown === SENSITIVE_PLACEHOLDER && typeof value !== 'object' ? SENSITIVE : { kind: 'value', value: shown };
}

/** Structural equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const rb = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(rb, k) && jsonEqual((a as Record<string, unknown>)[k], rb[k]));
}
