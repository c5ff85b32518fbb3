import { z } from 'zod';
import type { PlanJson, PlanStateModule } from '../plan/schema.js';
import { normalizeIdentifier, s3Arn } from './identifiers.js';

/**
 * Which stack owns a cloud resource: an index from the identifiers in each stack's prior state to
 * (stack, resource address), kept current as plans run and persisted with the runs as a plain array.
 */
export interface ResourceRef {
  stack: string;
  address: string;
}

/** One indexed resource: the persisted form is an array of these. */
export interface IndexedResource extends ResourceRef {
  identifiers: string[];
}

/** The persisted index, checked when read back: it comes from the store, which another version wrote. */
export const IndexedResources = z.array(
  z.object({ stack: z.string().min(1), address: z.string().min(1), identifiers: z.array(z.string()) }),
);

/**
 * The attributes that identify a resource across providers' state: `id` and `arn` everywhere, and the
 * names AWS APIs take as parameters (a bucket's `bucket`, a function's `function_name`, …). Kept small:
 * each extra attribute is a chance for an unrelated string in an event to match.
 */
export const IDENTIFIER_ATTRIBUTES = [
  'id',
  'arn',
  'bucket',
  'name',
  'function_name',
  'identifier',
  'cluster_identifier',
  'role_name',
  'queue_url',
  'topic_arn',
  'table_name',
] as const;

/** Types whose identity is not one attribute. */
const TYPE_IDENTIFIERS: Record<string, (values: Record<string, unknown>) => string[]> = {
  // An object is `bucket/key` in events (requestParameters bucketName + key, its resource ARN); its `id`
  // alone is the key, which would match the same key in every bucket.
  aws_s3_object: (v) =>
    typeof v.bucket === 'string' && typeof v.key === 'string' ? [`${v.bucket}/${v.key}`, s3Arn(v.bucket, v.key)] : [],
};

/** A resource's identifiers from its state values. */
export function resourceIdentifiers(type: string, values: unknown): string[] {
  if (typeof values !== 'object' || values === null) return [];
  const record = values as Record<string, unknown>;
  const special = TYPE_IDENTIFIERS[type];
  const raw = special
    ? special(record)
    : IDENTIFIER_ATTRIBUTES.map((a) => record[a]).filter((v): v is string => typeof v === 'string');
  return [...new Set(raw.flatMap(normalizeIdentifier))];
}

/** Resource type from the state entry, or from its address (`module.x.aws_s3_bucket.logs["a"]`). */
function typeOf(resource: { address: string; [k: string]: unknown }): string {
  if (typeof resource.type === 'string') return resource.type;
  const parts = resource.address.replace(/\[[^\]]*\]/g, '').split('.');
  return parts[parts.length - 2] ?? '';
}

function walk(module: PlanStateModule | undefined, out: { address: string; identifiers: string[] }[]): void {
  if (!module) return;
  for (const resource of module.resources ?? []) {
    if (resource.mode !== 'managed') continue;
    const identifiers = resourceIdentifiers(typeOf(resource), resource.values);
    if (identifiers.length) out.push({ address: resource.address, identifiers });
  }
  for (const child of module.child_modules ?? []) walk(child, out);
}

/** The managed resources of a plan's prior state with their identifiers. */
export function indexEntriesOfPlan(plan: PlanJson): { address: string; identifiers: string[] }[] {
  const out: { address: string; identifiers: string[] }[] = [];
  walk(plan.prior_state?.values?.root_module, out);
  return out;
}

export class ResourceIndex {
  /** identifier -> the resources it names; usually one. */
  private readonly byIdentifier = new Map<string, IndexedResource[]>();
  private readonly byStack = new Map<string, IndexedResource[]>();

  /** From `toJSON()`'s array; throws a ZodError naming the entry when it is not that. */
  static fromJSON(raw: unknown): ResourceIndex {
    const entries = IndexedResources.parse(raw);
    const index = new ResourceIndex();
    const perStack = new Map<string, { address: string; identifiers: string[] }[]>();
    for (const e of entries) {
      const list = perStack.get(e.stack) ?? [];
      list.push({ address: e.address, identifiers: e.identifiers });
      perStack.set(e.stack, list);
    }
    for (const [stack, list] of perStack) index.replaceStack(stack, list);
    return index;
  }

  /** A stack's new plan replaces everything the index held for it. */
  replaceStack(stack: string, resources: readonly { address: string; identifiers: readonly string[] }[]): void {
    this.removeStack(stack);
    const entries: IndexedResource[] = [];
    for (const r of resources) {
      const entry: IndexedResource = { stack, address: r.address, identifiers: [...r.identifiers] };
      entries.push(entry);
      for (const id of entry.identifiers) {
        const list = this.byIdentifier.get(id);
        if (list) list.push(entry);
        else this.byIdentifier.set(id, [entry]);
      }
    }
    if (entries.length) this.byStack.set(stack, entries);
  }

  removeStack(stack: string): void {
    const old = this.byStack.get(stack);
    if (!old) return;
    for (const entry of old) {
      for (const id of entry.identifiers) {
        const list = this.byIdentifier.get(id)?.filter((e) => e.stack !== stack);
        if (list?.length) this.byIdentifier.set(id, list);
        else this.byIdentifier.delete(id);
      }
    }
    this.byStack.delete(stack);
  }

  /** The resources any of the identifiers names, each once. */
  match(identifiers: Iterable<string>): ResourceRef[] {
    const seen = new Set<IndexedResource>();
    const out: ResourceRef[] = [];
    for (const id of identifiers) {
      for (const entry of this.byIdentifier.get(id) ?? []) {
        if (seen.has(entry)) continue;
        seen.add(entry);
        out.push({ stack: entry.stack, address: entry.address });
      }
    }
    return out;
  }

  /** The stack's indexed resources (their identifiers are what a cloud's audit log is asked about). */
  resourcesOf(stack: string): readonly IndexedResource[] {
    return this.byStack.get(stack) ?? [];
  }

  get size(): number {
    let n = 0;
    for (const entries of this.byStack.values()) n += entries.length;
    return n;
  }

  stacks(): string[] {
    return [...this.byStack.keys()];
  }

  toJSON(): IndexedResource[] {
    return [...this.byStack.values()].flat().map((e) => ({ ...e, identifiers: [...e.identifiers] }));
  }
}

/** One stack's part of the index as the store keeps it, with the state it was built from. */
export interface StackResourceIndex {
  stack: string;
  serial?: number;
  lineage?: string;
  resources: { address: string; identifiers: string[] }[];
  updatedAt: Date;
}
