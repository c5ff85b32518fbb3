import { z } from 'zod';
import { cloudTrailConsoleUrl } from '../../domain/change-events/describe.js';
import type { MatchedChange } from '../../domain/change-events/intake.js';
import { StoredChangeDescription } from '../../domain/change-events/stored-change.js';

/** A `pending_changes` row, the same columns on SQLite and Postgres; JSON comes back as text from both. */
const PendingChangeRow = z.object({ change: z.string() });

const StoredMatchedChange = StoredChangeDescription.extend({
  resources: z.array(z.object({ stack: z.string(), address: z.string() })),
});

/** The row's values in column order: stack, event id, when it was made, when it came, the change. */
export function pendingChangeValues(
  stack: string,
  change: MatchedChange,
  nowMs: number,
): [string, string, number, number, string] {
  const { consoleUrl: _link, ...kept } = change;
  return [stack, change.eventId, change.at.getTime(), nowMs, JSON.stringify(kept)];
}

/** A row another version (or replica) wrote: checked as the attribution reads it. */
export function toPendingChange(raw: unknown): MatchedChange {
  const change = StoredMatchedChange.parse(JSON.parse(PendingChangeRow.parse(raw).change));
  const consoleUrl = cloudTrailConsoleUrl(change.region, change.eventId);
  return { ...change, ...(consoleUrl ? { consoleUrl } : {}) };
}
