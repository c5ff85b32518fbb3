/**
 * What changed inside a JSON-encoded string attribute: IAM and bucket policies, ECS container definitions,
 * Step Functions definitions are strings to terraform, so one added statement shows as two walls of text.
 * Here keys are compared at every level, arrays of objects are matched by a stable key where they have one
 * (`name`, `Sid`…) and by index otherwise, and a policy document is read as IAM reads it: `Statement` one
 * object or a list, statements matched by `Sid` or else by content, and `Action`, `Resource`, principals and
 * condition values sets that may be written as a single string. Values are masked as the rest of the diff
 * (maskSide); the raw strings stay in the plan file.
 */
import type { JsonChange, JsonDiff, Redactor } from './model.js';
import { jsonEqual, maskSide } from './mask.js';

/** Kept per attribute; a rewritten document's other changes are counted. */
export const MAX_JSON_CHANGES = 100;

type Json = Record<string, unknown>;
type Scalar = string | number | boolean;

/** Where a value sits in a policy document: sets and statements compare as IAM reads them. */
type Hint = 'policy' | 'statements' | 'statement' | 'principal' | 'condition' | 'condition-op' | 'set' | undefined;

/** Keys that identify an object in a list, most specific first. */
const STABLE_KEYS = ['Sid', 'name', 'Name', 'id', 'Id', 'Key', 'key'] as const;
const STATEMENT_SETS = new Set(['Action', 'NotAction', 'Resource', 'NotResource']);
const PRINCIPALS = new Set(['Principal', 'NotPrincipal']);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** The object or array a string holds, else undefined; a cheap look at the first character spares most strings. */
export function parseJsonDocument(text: string): object | undefined {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

function childHint(hint: Hint, key: string): Hint {
  switch (hint) {
    case 'policy':
      return key === 'Statement' ? 'statements' : undefined;
    case 'statement':
      if (STATEMENT_SETS.has(key)) return 'set';
      if (PRINCIPALS.has(key)) return 'principal';
      return key === 'Condition' ? 'condition' : undefined;
    case 'principal':
    case 'condition-op':
      return 'set';
    case 'condition':
      return 'condition-op';
    default:
      return undefined;
  }
}

/**
 * A policy document as IAM reads it: `Statement` always a list, and every set (actions, resources,
 * principals, condition values) a sorted list without repeats, so "s3:GetObject" and ["s3:GetObject"] are
 * one value and order is no change.
 */
function normalise(value: unknown, hint: Hint): unknown {
  if (hint === 'set') {
    const items = Array.isArray(value) ? value : [value];
    if (!items.every(isScalar)) return value;
    return [...new Set(items)].sort((a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
  }
  if (hint === 'statements') {
    const list = isObject(value) ? [value] : value;
    return Array.isArray(list) ? list.map((s) => normalise(s, 'statement')) : list;
  }
  if (!isObject(value) || hint === undefined) return value;
  // Object.fromEntries: a key `__proto__` (JSON allows it) stays a key, not the copy's prototype.
  return Object.fromEntries(Object.keys(value).map((key) => [key, normalise(value[key], childHint(hint, key))]));
}

function keyPath(path: string, key: string): string {
  if (IDENTIFIER.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/** The key an array of objects is matched by: present on every item with a scalar value, unique per side. */
function stableKey(before: unknown[], after: unknown[], partial: boolean): string | undefined {
  for (const key of STABLE_KEYS) {
    let found = false;
    const ok = [before, after].every((items) => {
      const seen = new Set<unknown>();
      return items.every((item) => {
        const id = isObject(item) ? item[key] : undefined;
        if (id === undefined) return partial && isObject(item);
        if (typeof id !== 'string' && typeof id !== 'number') return false;
        found = true;
        if (seen.has(id)) return false;
        seen.add(id);
        return true;
      });
    });
    if (ok && found) return key;
  }
  return undefined;
}

class JsonDiffer {
  readonly changes: JsonChange[] = [];
  omitted = 0;

  constructor(private readonly redactor: Redactor) {}

  private emit(path: string, before: unknown, after: unknown): void {
    if (this.changes.length >= MAX_JSON_CHANGES) {
      this.omitted += 1;
      return;
    }
    const { redactor } = this;
    this.changes.push({
      path: redactor.size > 0 ? redactor.redactInside(path) : path,
      before: maskSide(before, undefined, undefined, redactor),
      after: maskSide(after, undefined, undefined, redactor),
    });
  }

  walk(b: unknown, a: unknown, path: string, hint: Hint): void {
    if (b === undefined && a === undefined) return;
    if (hint === 'set' && Array.isArray(b) && Array.isArray(a)) return this.sets(b, a, path);
    if (jsonEqual(b, a)) return;
    if (b === undefined || a === undefined) return this.emit(path, b, a);
    if (isObject(b) && isObject(a)) {
      const keys = new Set([...Object.keys(b), ...Object.keys(a)]);
      for (const key of [...keys].sort())
        this.walk(
          Object.hasOwn(b, key) ? b[key] : undefined,
          Object.hasOwn(a, key) ? a[key] : undefined,
          keyPath(path, key),
          childHint(hint, key),
        );
      return;
    }
    if (Array.isArray(b) && Array.isArray(a)) return this.arrays(b, a, path, hint);
    this.emit(path, b, a);
  }

  /** Members removed, then members added: a set has no order to compare. */
  private sets(b: unknown[], a: unknown[], path: string): void {
    for (const item of b) if (!a.some((x) => jsonEqual(x, item))) this.emit(path, item, undefined);
    for (const item of a) if (!b.some((x) => jsonEqual(x, item))) this.emit(path, undefined, item);
  }

  private arrays(b: unknown[], a: unknown[], path: string, hint: Hint): void {
    const statements = hint === 'statements';
    const key = stableKey(b, a, statements);
    const itemHint = statements ? 'statement' : undefined;
    if (!key && !statements) {
      for (let i = 0; i < Math.max(b.length, a.length); i++) this.walk(b[i], a[i], `${path}[${i}]`, itemHint);
      return;
    }
    const idOf = (item: unknown) => (key && isObject(item) ? (item[key] as string | number | undefined) : undefined);
    const label = (id: string | number) =>
      `${path}[${key}=${typeof id === 'number' ? id : JSON.stringify(this.redactor.redact(id))}]`;
    const afterById = new Map<string | number, unknown>();
    for (const item of a) if (idOf(item) !== undefined) afterById.set(idOf(item)!, item);
    // Items without the key (statements without a Sid) are the same statement only when equal.
    const unkeyedAfter = a.map((item, i) => ({ item, i })).filter(({ item }) => idOf(item) === undefined);
    b.forEach((item, i) => {
      const id = idOf(item);
      if (id !== undefined) {
        if (afterById.has(id)) this.walk(item, afterById.get(id), label(id), itemHint);
        else this.emit(label(id), item, undefined);
        return;
      }
      const twin = unkeyedAfter.findIndex((x) => jsonEqual(x.item, item));
      if (twin >= 0) unkeyedAfter.splice(twin, 1);
      else this.emit(`${path}[${i}]`, item, undefined);
    });
    const beforeIds = new Set(b.map(idOf).filter((id) => id !== undefined));
    for (const item of a) {
      const id = idOf(item);
      if (id !== undefined && !beforeIds.has(id)) this.emit(label(id), undefined, item);
    }
    for (const { item, i } of unkeyedAfter) this.emit(`${path}[${i}]`, undefined, item);
  }
}

/**
 * The structural diff of two strings that both hold a JSON object or array, else undefined (one side
 * plain text, or an object against an array). No changes: the same document, keys reordered or respaced.
 */
export function diffJsonStrings(before: string, after: string, redactor: Redactor): JsonDiff | undefined {
  const b = parseJsonDocument(before);
  const a = parseJsonDocument(after);
  if (!b || !a || Array.isArray(b) !== Array.isArray(a)) return undefined;
  const policy = isObject(b) && isObject(a) && (Object.hasOwn(b, 'Statement') || Object.hasOwn(a, 'Statement'));
  const hint: Hint = policy ? 'policy' : undefined;
  const differ = new JsonDiffer(redactor);
  differ.walk(normalise(b, hint), normalise(a, hint), '', hint);
  return { changes: differ.changes, omitted: differ.omitted };
}
