import { z } from 'zod';
import { cloudTrailConsoleUrl } from '../../../domain/change-events/describe.js';
import type { MatchedChange } from '../../../domain/change-events/intake.js';
import type { PendingChanges } from '../../../ports/store.js';
import { StoredChangeDescription } from '../../../domain/change-events/stored-change.js';

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

/**
 * The changes of rows another version (or replica) wrote, checked as the attribution reads them: a row
 * that does not read is counted, not returned, and goes with the others when its check answers them.
 */
export function toPendingChanges(raws: readonly unknown[]): PendingChanges {
  const changes: MatchedChange[] = [];
  let unreadable = 0;
  for (const raw of raws) {
    const change = readChange(raw);
    if (change) changes.push(change);
    else unreadable++;
  }
  return { changes, unreadable };
}

function readChange(raw: unknown): MatchedChange | undefined {
  const row = PendingChangeRow.safeParse(raw);
  if (!row.success) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(row.data.change);
  } catch {
    return undefined;
  }
  const change = StoredMatchedChange.safeParse(json);
  if (!change.success) return undefined;
  const consoleUrl = cloudTrailConsoleUrl(change.data.region, change.data.eventId);
  return { ...change.data, ...(consoleUrl ? { consoleUrl } : {}) };
}
