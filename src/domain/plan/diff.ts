/**
 * Attribute-level diff of resource changes: the leaves of objects and lists that differ, each with its
 * path, masked before/after and whether it forces replacement. Lists are compared by index, which reads
 * well for the short lists resources hold even when a list changes length.
 *
 * One walker serves a whole plan, so that paths are built once per plan (see PathNode): allocation, not
 * computation, is what a 10,000-resource plan costs.
 */
import type { AttributeChange, Redactor } from './model.js';
import { childMark, childValue, isAbsent, jsonEqual, maskSide } from './mask.js';
import { diffJsonStrings } from './json-diff.js';
import { formatPath, pathsOverlap, type PathSegment } from './paths.js';

export interface ChangeSides {
  before: unknown;
  after: unknown;
  beforeSensitive?: unknown;
  afterSensitive?: unknown;
  afterUnknown?: unknown;
  replacePaths: readonly (readonly PathSegment[])[];
}

type Container = 'object' | 'array' | undefined;

function containerOf(value: unknown): Container {
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' && value !== null ? 'object' : undefined;
}

function isEmptyContainer(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  for (const _ in value as object) return false;
  return true;
}

const NO_KEYS: readonly string[] = Object.freeze([]);

function isSorted(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return false;
  return true;
}

/**
 * Keys of both sides and of the unknown marks (an unknown attribute may be absent from `after`),
 * sorted. terraform writes keys sorted and the sides mostly share them, so the common case allocates
 * one array (and `for…in` reads the other sides without allocating).
 */
function objectKeys(b: unknown, a: unknown, au: unknown): readonly string[] {
  let keys: string[] | readonly string[] = containerOf(a) === 'object' ? Object.keys(a as object) : NO_KEYS;
  let owned = keys !== NO_KEYS;
  for (const side of [b, au]) {
    if (containerOf(side) !== 'object') continue;
    for (const key in side as object) {
      if (keys.includes(key)) continue;
      if (!owned) {
        keys = [...keys];
        owned = true;
      }
      (keys as string[]).push(key);
    }
  }
  return isSorted(keys) ? keys : [...keys].sort();
}

function lengthOf(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

/**
 * A node of the tree of every attribute path met in the plan, holding its printed path and segments.
 * Resources of one type share their paths, so a plan of 10,000 of them builds each path once: no string
 * is concatenated or hashed per attribute, and `segments` arrays are shared (frozen) between resources.
 */
interface PathNode {
  path: string;
  segments: readonly PathSegment[];
  children: Map<PathSegment, PathNode>;
}

export class DiffWalker {
  private out: AttributeChange[] = [];
  private replacePaths: ChangeSides['replacePaths'] = [];
  private readonly root: PathNode = { path: '', segments: Object.freeze([]), children: new Map() };

  /**
   * `jsonDiffs`: what changed inside JSON-encoded strings (json-diff.ts), for the diffs people read; the
   * policy input needs only the paths and does not pay for them.
   */
  constructor(
    private readonly redactor: Redactor,
    private readonly options: { jsonDiffs?: boolean } = {},
  ) {}

  diff(sides: ChangeSides): AttributeChange[] {
    this.out = [];
    this.replacePaths = sides.replacePaths;
    this.walk(sides.before, sides.after, sides.beforeSensitive, sides.afterSensitive, sides.afterUnknown, this.root);
    return this.out;
  }

  private childNode(parent: PathNode, key: PathSegment): PathNode {
    let node = parent.children.get(key);
    if (!node) {
      const segments = [...parent.segments, key];
      const path = formatPath(segments);
      const masked = this.redactor.size > 0;
      node = {
        path: masked ? this.redactor.redactInside(path) : path,
        segments: Object.freeze(
          masked ? segments.map((s) => (typeof s === 'string' ? this.redactor.redactInside(s) : s)) : segments,
        ),
        children: new Map(),
      };
      parent.children.set(key, node);
    }
    return node;
  }

  private walk(b: unknown, a: unknown, bs: unknown, as: unknown, au: unknown, node: PathNode): void {
    const root = node === this.root;
    // At the root a whole-resource mark still lists attributes one by one, each masked.
    if ((bs === true || as === true || au === true) && !root) {
      if (au !== true && bs === as && jsonEqual(b, a)) return;
      return this.leaf(b, a, bs, as, au, node);
    }
    const bc = containerOf(b);
    const ac = containerOf(a);
    if (root && bc === undefined && ac === undefined) return;
    const descend =
      (bc !== undefined && bc === ac) ||
      (bc !== undefined && isAbsent(a) && !isEmptyContainer(b)) ||
      (ac !== undefined && isAbsent(b) && !isEmptyContainer(a));
    if (!descend) {
      if (jsonEqual(b ?? null, a ?? null)) return;
      return this.leaf(b, a, bs, as, au, node);
    }
    if ((bc ?? ac) === 'array') {
      const length = Math.max(lengthOf(b), lengthOf(a), lengthOf(au));
      for (let i = 0; i < length; i++) this.child(b, a, bs, as, au, node, i);
    } else {
      for (const key of objectKeys(b, a, au)) this.child(b, a, bs, as, au, node, key);
    }
  }

  private child(b: unknown, a: unknown, bs: unknown, as: unknown, au: unknown, node: PathNode, key: PathSegment): void {
    const next = this.childNode(node, key);
    this.walk(childValue(b, key), childValue(a, key), childMark(bs, key), childMark(as, key), childMark(au, key), next);
  }

  private leaf(b: unknown, a: unknown, bs: unknown, as: unknown, au: unknown, node: PathNode): void {
    const { redactor } = this;
    const change: AttributeChange = {
      path: node.path,
      segments: node.segments as PathSegment[],
      before: maskSide(b, bs, undefined, redactor),
      after: maskSide(a, as, au, redactor),
      forcesReplacement: this.replacePaths.length > 0 && this.replacePaths.some((p) => pathsOverlap(p, node.segments)),
    };
    // Only two shown strings: a side masked as a whole (marked sensitive, equal to a secret) shows nothing inside.
    if (
      this.options.jsonDiffs &&
      typeof b === 'string' &&
      typeof a === 'string' &&
      change.before.kind === 'value' &&
      change.after.kind === 'value'
    ) {
      const json = diffJsonStrings(b, a, redactor);
      if (json) change.json = json;
    }
    this.out.push(change);
  }
}
