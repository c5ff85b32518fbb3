import type { ChangeEvent } from './schema.js';

/**
 * The cloud identifiers an event names, in the form the resource index keys them by. An event can be
 * large (a RunInstances response lists every instance) and is written by whoever holds credentials, so
 * the walk is bounded in depth, in strings taken and in the length of each.
 */
export const IDENTIFIER_LIMITS = { depth: 6, strings: 256, minLength: 3, maxLength: 2048 } as const;

/**
 * One form per identifier: trimmed, and an S3 ARN's bucket or object as `bucket` / `bucket/key` too,
 * since terraform's state names a bucket by its name and an object by bucket and key.
 */
export function normalizeIdentifier(value: string): string[] {
  const trimmed = value.trim();
  if (trimmed.length < IDENTIFIER_LIMITS.minLength || trimmed.length > IDENTIFIER_LIMITS.maxLength) return [];
  // Counts, ports and sizes: no resource is identified by a bare number.
  if (/^\d+$/.test(trimmed)) return [];
  const s3 = /^arn:aws[a-z-]*:s3:::(.+)$/.exec(trimmed);
  if (s3?.[1]) return [trimmed, s3[1]];
  return [trimmed];
}

/** `arn:aws:s3:::bucket` and `arn:aws:s3:::bucket/key`: how S3 resources appear in other events. */
export function s3Arn(bucket: string, key?: string): string {
  return key === undefined ? `arn:aws:s3:::${bucket}` : `arn:aws:s3:::${bucket}/${key}`;
}

/**
 * Parameter names that name resources: `bucketName`, `instanceId`, `roleArn`, `dbInstanceIdentifier`,
 * `queueUrl`, `resourceIds`, a bare `id`, `name`, `rule` or `UUID` (which CloudTrail writes `uUID`).
 * Other parameters hold values (`tenancy: "default"`, a policy, tags and their `key`s) that may equal
 * some resource's name by chance: they are not matched. An S3 object's `key` is taken with its
 * `bucketName`.
 */
const BARE_IDENTIFIER = /^(?:id|name|arn|identifier|cluster|service|rule|uuid)$/i;
const IDENTIFIER_SUFFIX = /(?:Id|Ids|Arn|Arns|ARN|Name|Names|Identifier|Identifiers|Url)$/;
export function namesResource(parameter: string): boolean {
  return BARE_IDENTIFIER.test(parameter) || IDENTIFIER_SUFFIX.test(parameter);
}

/**
 * Parameters that hold tags, in every service's spelling: `tags`, `Tags`, `tagSet`, `TagSpecifications`,
 * `tagSpecificationSet`, S3's `Tagging`, `tagKeys`, Route 53's `addTags`, `tagsToAdd`. Whoever may tag a
 * resource writes any key and value there (a tag `bucketName`, an ARN of another stack's resource as a
 * value), so nothing under them names a resource: a tagging call names its resource beside them.
 */
const TAGS_SUFFIX = /(?:tags?|tagset|taglist|tagkeys|tagging|tagspecifications?|tagspecificationset)$/i;
const TAGS_PREFIX = /^[Tt]ags[A-Z_]/;
export function holdsTags(parameter: string): boolean {
  return TAGS_SUFFIX.test(parameter) || TAGS_PREFIX.test(parameter);
}

function add(value: string, out: Set<string>): void {
  for (const id of normalizeIdentifier(value)) {
    if (out.size >= IDENTIFIER_LIMITS.strings) return;
    out.add(id);
  }
}

/**
 * Strings under identifier-named parameters (`named`), and ARNs wherever they are but under tags
 * (`holdsTags`), to a bounded depth.
 */
function collectStrings(value: unknown, depth: number, named: boolean, out: Set<string>): void {
  if (out.size >= IDENTIFIER_LIMITS.strings) return;
  if (typeof value === 'string') {
    if (named || value.trimStart().startsWith('arn:')) add(value, out);
    return;
  }
  if (depth >= IDENTIFIER_LIMITS.depth || typeof value !== 'object' || value === null) return;
  // The items of a list are named by the list's parameter (`resourceIds: [...]`).
  const children: [boolean, unknown][] = Array.isArray(value)
    ? value.map((child) => [named, child])
    : Object.entries(value)
        .filter(([key]) => !holdsTags(key))
        .map(([key, child]) => [namesResource(key), child]);
  for (const [childNamed, child] of children) {
    if (out.size >= IDENTIFIER_LIMITS.strings) return;
    collectStrings(child, depth + 1, childNamed, out);
  }
}

/**
 * Every identifier the event names: `resources[].ARN`, S3's `bucketName`/`key` as `bucket/key`, and in
 * `requestParameters` and `responseElements` the identifier parameters (`namesResource`) and ARNs,
 * never anything under tags.
 * Resource ARNs come first so that the bound on strings never drops them.
 */
export function identifiersOf(event: ChangeEvent): string[] {
  const { record } = event;
  const out = new Set<string>();
  for (const resource of record.resources ?? []) {
    if (resource.ARN) add(resource.ARN, out);
  }
  const params = record.requestParameters;
  const bucket = typeof params?.bucketName === 'string' ? params.bucketName : undefined;
  if (bucket) {
    add(bucket, out);
    add(s3Arn(bucket), out);
    if (typeof params?.key === 'string') add(`${bucket}/${params.key}`, out);
  }
  collectStrings(params, 0, false, out);
  collectStrings(record.responseElements, 0, false, out);
  return [...out];
}
