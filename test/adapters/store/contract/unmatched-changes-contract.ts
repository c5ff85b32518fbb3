import { describe, expect, it } from 'vitest';
import type { UnmatchedChange } from '../../../../src/domain/change-events/unmatched.js';
import { manualClock } from '../temp-store.js';
import type { StoreContractTarget } from './target.js';

const HOUR = 3600_000;

function change(eventId: string, at: string, more: Partial<UnmatchedChange> = {}): UnmatchedChange {
  return {
    principal: {
      kind: 'iam_user',
      arn: 'arn:aws:iam::111122223333:user/alice',
      name: 'alice',
      display: 'alice (IAM user)',
    },
    how: 'console',
    eventName: 'PutBucketTagging',
    eventSource: 's3.amazonaws.com',
    at: new Date(at),
    sourceIp: '203.0.113.7',
    eventId,
    account: '111122223333',
    region: 'eu-west-1',
    consoleUrl: `https://eu-west-1.console.aws.amazon.com/cloudtrail/home?region=eu-west-1#/events/${eventId}`,
    resources: ['arn:aws:s3:::unmanaged-bucket'],
    ...more,
  };
}

/** Change events that matched no stack: kept newest first across connections, counted once per event. */
export function unmatchedChangesContract(target: StoreContractTarget): void {
  describe('unmatched changes', () => {
    it('lists the kept changes newest first to another connection, each event once, with every one counted', async () => {
      const clock = manualClock(Date.parse('2025-01-01T10:30:00Z'));
      const store = await target.open({ now: clock.now });
      const since = new Date(clock.now().getTime() - HOUR);
      expect(await store.listUnmatchedChanges({ since, limit: 10 })).toEqual({ changes: [], counted: 0 });
      const older = change('0000aaaa-older', '2025-01-01T10:00:00Z');
      const newer = change('0000bbbb-newer', '2025-01-01T10:20:00Z', {
        principal: { kind: 'root', name: 'root', display: 'root (account 111122223333)' },
        resources: [],
      });
      await store.recordUnmatchedChanges({ changes: [older, newer], dropped: 0 });
      // A redelivery of the same event, and three a burst left unkept.
      await store.recordUnmatchedChanges({ changes: [older], dropped: 3 });

      const again = await target.open({ now: clock.now });
      expect(await again.listUnmatchedChanges({ since, limit: 10 })).toEqual({ changes: [newer, older], counted: 5 });
      expect(await again.listUnmatchedChanges({ since, limit: 1 })).toEqual({ changes: [newer], counted: 5 });
    });

    it('prunes what is older than the window and beyond the newest kept, and the counts before it', async () => {
      const clock = manualClock(Date.parse('2025-01-01T00:10:00Z'));
      const store = await target.open({ now: clock.now });
      await store.recordUnmatchedChanges({ changes: [change('0000aaaa-day-one', '2025-01-01T00:05:00Z')], dropped: 0 });
      clock.advance(24 * HOUR);
      await store.recordUnmatchedChanges({
        changes: ['a', 'b', 'c'].map((s, i) => change(`0000bbbb-${s}`, `2025-01-02T00:0${i}:00Z`)),
        dropped: 0,
      });
      const dayAgo = new Date(clock.now().getTime() - 12 * HOUR);
      expect(await store.pruneUnmatchedChanges({ before: dayAgo, keep: 2 })).toBe(2);
      const all = await store.listUnmatchedChanges({ since: new Date(0), limit: 10 });
      expect(all.changes.map((c) => c.eventId)).toEqual(['0000bbbb-c', '0000bbbb-b']);
      // The day-one count went with its hour; the three of today stay counted though one is no longer kept.
      expect(all.counted).toBe(3);
    });

    it('refuses a row it cannot read rather than showing it', async () => {
      const store = await target.open();
      await target.execRaw(
        `INSERT INTO unmatched_changes (event_id, at, received_at, change) VALUES ('x', 1, 1, '{"eventName": 3}')`,
      );
      await expect(store.listUnmatchedChanges({ since: new Date(0), limit: 5 })).rejects.toThrow(/eventName|principal/);
    });
  });
}
