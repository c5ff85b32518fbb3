import { z } from 'zod';
import { cloudTrailConsoleUrl } from '../../../domain/change-events/describe.js';
import { StoredChangeDescription } from '../../../domain/change-events/stored-change.js';
import type { UnmatchedChange } from '../../../domain/change-events/unmatched.js';

/** An `unmatched_changes` row, the same columns on SQLite and Postgres; JSON comes back as text from both. */
const UnmatchedChangeRow = z.object({
  event_id: z.string(),
  at: z.number(),
  received_at: z.number(),
  change: z.string(),
});

const StoredUnmatchedChange = StoredChangeDescription.extend({ resources: z.array(z.string()) });

export const HOUR_MS = 3600_000;

/** The hour a count goes to: counts are kept per hour, so "since" is read to the hour. */
export const hourOf = (ms: number): number => Math.floor(ms / HOUR_MS) * HOUR_MS;

/** The row's values in column order; the console link is not stored (it is built again on reading). */
export function unmatchedChangeValues(change: UnmatchedChange, nowMs: number): [string, number, number, string] {
  const { consoleUrl: _link, ...kept } = change;
  return [change.eventId, change.at.getTime(), nowMs, JSON.stringify(kept)];
}

/** A row another version may have written: checked as the renderer reads it. */
export function toUnmatchedChange(raw: unknown): UnmatchedChange {
  const row = UnmatchedChangeRow.parse(raw);
  const change = StoredUnmatchedChange.parse(JSON.parse(row.change));
  const consoleUrl = cloudTrailConsoleUrl(change.region, change.eventId);
  return { ...change, ...(consoleUrl ? { consoleUrl } : {}) };
}
