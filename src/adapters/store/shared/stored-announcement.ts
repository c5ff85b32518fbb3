import { z } from 'zod';
import type { Announcement } from '../../../domain/events.js';
import { json, parseRow } from './rows.js';

/** An Announcement as a run row keeps it (JSON), checked when read back. */
export const StoredAnnouncement = z.discriminatedUnion('type', [
  z.object({ type: z.enum(['drift_detected', 'plan_pending_approval', 'no_changes']) }),
  z.object({
    type: z.literal('plan_refreshed'),
    previousRunId: z.string().optional(),
    notConverging: z.number().int().optional(),
  }),
  z.object({ type: z.literal('drift_resolved'), previousFingerprint: z.string(), previousRunId: z.string() }),
]);

const AnnouncementColumn = z.object({ announcement: json(StoredAnnouncement) });

/** The announcement of a run row that has one; the error names the run when it is unreadable. */
export function toAnnouncement(row: unknown): Announcement {
  return parseRow(AnnouncementColumn, 'runs', row).announcement as Announcement;
}
