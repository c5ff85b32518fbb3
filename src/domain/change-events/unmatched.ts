import type { ChangeDescription } from './describe.js';
import { namesResource, normalizeIdentifier, s3Arn } from './identifiers.js';
import type { ChangeEvent } from './schema.js';

/**
 * Changes to resources no stack manages: kept so that a person can list them (`/drift events`). An
 * event's request and response hold values (policies, tags, user data), so only what names a resource
 * is kept: its `resources[].ARN`, and the top-level request parameters that are identifiers by name.
 */

export interface UnmatchedChange extends ChangeDescription {
  /** The ARNs and identifiers the event names, at most `UNMATCHED_LIMITS.resources`. */
  resources: string[];
}

/** The newest `changes`, none older than `ageMs`; a burst beyond them is only counted. */
export const UNMATCHED_LIMITS = {
  changes: 200,
  ageMs: 7 * 24 * 3600_000,
  resources: 10,
  /** An identifier is short and one word; anything longer is a value. */
  identifierLength: 256,
} as const;

function identifier(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const [id] = normalizeIdentifier(value);
  return id && id.length <= UNMATCHED_LIMITS.identifierLength && !/\s/.test(id) ? id : undefined;
}

/** What the event names that a person can look up: ARNs first, then identifier parameters, bounded. */
export function namedResources(event: ChangeEvent): string[] {
  const { record } = event;
  const out = new Set<string>();
  const add = (value: unknown) => {
    const id = identifier(value);
    if (id && out.size < UNMATCHED_LIMITS.resources) out.add(id);
  };
  for (const resource of record.resources ?? []) add(resource.ARN);
  const params = record.requestParameters ?? {};
  const bucket = identifier(params.bucketName);
  if (bucket) {
    const key = identifier(params.key);
    add(key === undefined ? s3Arn(bucket) : s3Arn(bucket, key));
  }
  for (const [name, value] of Object.entries(params)) {
    if (!namesResource(name)) continue;
    if (Array.isArray(value)) for (const v of value) add(v);
    else add(value);
  }
  return [...out];
}
