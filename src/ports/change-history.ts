import type { ChangeEvent } from '../domain/change-events/schema.js';

/** What a cloud's audit log says was done to a resource: CloudTrail today, GCP Audit Logs later. */
export interface ChangeHistory {
  /** The calls that named `resourceName` from `since` to now, newest first; `signal` ends the walk. */
  changesTo(resourceName: string, since: Date, options?: { signal?: AbortSignal }): Promise<ChangeHistoryResult>;
}

export interface ChangeHistoryResult {
  events: ChangeEvent[];
  /** Records the log returned that could not be read, with why (never their content). */
  unreadable: { eventId?: string; reason: string }[];
  /** True when the page bound stopped the walk before the log's end. */
  truncated: boolean;
}
