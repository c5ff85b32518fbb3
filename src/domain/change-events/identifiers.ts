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

function collectStrings(value: unknown, depth: number, out: Set<string>): void {
  if (out.size >= IDENTIFIER_LIMITS.strings) return;
  if (typeof value === 'string') {
    for (const id of normalizeIdentifier(value)) {
      if (out.size >= IDENTIFIER_LIMITS.strings) return;
      out.add(id);
    }
    return;
  }
  if (depth >= IDENTIFIER_LIMITS.depth || typeof value !== 'object' || value === null) return;
  const children = Array.isArray(value) ? value : Object.values(value);
  for (const child of children) {
    if (out.size >= IDENTIFIER_LIMITS.strings) return;
    collectStrings(child, depth + 1, out);
  }
}

/**
 * Every identifier the event names: `resources[].ARN`, S3's `bucketName`/`key` as `bucket/key`, and the
 * strings in `requestParameters` and `responseElements`. Resource ARNs come first so that the bound on
 * strings never drops them.
 */
export function identifiersOf(event: ChangeEvent): string[] {
  const { record } = event;
  const out = new Set<string>();
  for (const resource of record.resources ?? []) {
    if (resource.ARN) collectStrings(resource.ARN, 0, out);
  }
  const params = record.requestParameters;
  const bucket = typeof params?.bucketName === 'string' ? params.bucketName : undefined;
  if (bucket) {
    collectStrings(bucket, 0, out);
    collectStrings(s3Arn(bucket), 0, out);
    if (typeof params?.key === 'string') collectStrings(`${bucket}/${params.key}`, 0, out);
  }
  collectStrings(params, 0, out);
  collectStrings(record.responseElements, 0, out);
  return [...out];
}
