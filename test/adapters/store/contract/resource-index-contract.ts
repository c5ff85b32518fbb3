import { describe, expect, it } from 'vitest';
import { type MatchedChange, PENDING_CHANGES_PER_STACK } from '../../../../src/domain/change-events/intake.js';
import { matchedChange } from '../../../domain/change-events/fixtures.js';
import { manualClock } from '../temp-store.js';
import type { StoreContractTarget } from './target.js';

/** The change-event resource index: one row per stack, read back by another connection (a restart). */
export function resourceIndexContract(target: StoreContractTarget): void {
  describe('resource index', () => {
    const bucket = { address: 'aws_s3_bucket.logs', identifiers: ['logs', 'arn:aws:s3:::logs'] };

    it('keeps each stack’s resources and state version across connections; a new state replaces the old', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      expect(await store.listResourceIndexes()).toEqual([]);
      await store.saveResourceIndex({ stack: 'prod/net', serial: 4, lineage: 'l-1', resources: [bucket] });
      // Built from a plan's prior state: no serial to compare with yet.
      await store.saveResourceIndex({ stack: 'dev/app', resources: [] });
      await store.saveResourceIndex({
        stack: 'prod/net',
        serial: 5,
        lineage: 'l-1',
        resources: [bucket, { address: 'aws_s3_object.a["x"]', identifiers: ['logs/x'] }],
      });

      const again = await target.open();
      expect(await again.listResourceIndexes()).toEqual([
        { stack: 'dev/app', resources: [], updatedAt: clock.now() },
        {
          stack: 'prod/net',
          serial: 5,
          lineage: 'l-1',
          resources: [bucket, { address: 'aws_s3_object.a["x"]', identifiers: ['logs/x'] }],
          updatedAt: clock.now(),
        },
      ]);
    });

    it('lists one stack’s part, and the parts saved since a time (what a control plane polls for)', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      await store.saveResourceIndex({ stack: 'prod/net', serial: 1, lineage: 'l', resources: [bucket] });
      clock.advance(60_000);
      const since = clock.now();
      await store.saveResourceIndex({ stack: 'dev/app', resources: [] });
      const stacksOf = (list: { stack: string }[]) => list.map((e) => e.stack);
      expect(stacksOf(await store.listResourceIndexes({ updatedSince: since }))).toEqual(['dev/app']);
      expect(stacksOf(await store.listResourceIndexes({ stack: 'prod/net' }))).toEqual(['prod/net']);
      expect(await store.listResourceIndexes({ stack: 'prod/net', updatedSince: since })).toEqual([]);
      expect(stacksOf(await store.listResourceIndexes({}))).toEqual(['dev/app', 'prod/net']);
    });

    it('refuses a row it cannot read rather than matching events against it', async () => {
      const store = await target.open();
      await target.execRaw(
        `INSERT INTO resource_index (stack, serial, lineage, resources, updated_at) VALUES ('x', 1, 'l', '[{"address": 3}]', 0)`,
      );
      await expect(store.listResourceIndexes()).rejects.toThrow(/address/);
    });
  });

  describe('pending changes', () => {
    const change = (eventId: string, at: string, address = 'aws_s3_bucket.logs'): MatchedChange =>
      matchedChange(eventId, { stack: 'prod/net', address, at });

    const ids = (read: { changes: MatchedChange[] }) => read.changes.map((c) => c.eventId);

    it('keeps each event once per stack for another connection, which reads them oldest first', async () => {
      const store = await target.open();
      const later = change('0000e002-0000', '2025-01-01T10:05:00Z', 'aws_s3_object.a["x"]');
      const earlier = change('0000e001-0000', '2025-01-01T10:00:00Z');
      expect(await store.addPendingChanges('prod/net', [later, earlier])).toBe(2);
      // A redelivered event (SQS, an EventBridge retry) waits once.
      expect(await store.addPendingChanges('prod/net', [earlier])).toBe(0);
      expect(await store.addPendingChanges('dev/app', [earlier])).toBe(1);

      const worker = await target.open();
      expect(await worker.readPendingChanges('prod/net')).toEqual({ changes: [earlier, later], unreadable: 0 });
      expect(await store.readPendingChanges('dev/app')).toEqual({ changes: [earlier], unreadable: 0 });
      expect(await store.readPendingChanges('none/such')).toEqual({ changes: [], unreadable: 0 });
    });

    it('answers the changes up to a check’s mark, and leaves those kept after it for the next check', async () => {
      const store = await target.open();
      expect(await store.markPendingChanges('prod/net')).toBe(0);
      await store.addPendingChanges('prod/net', [change('0000e001-0000', '2025-01-01T10:00:00Z')]);
      await store.addPendingChanges('dev/app', [change('0000e009-0000', '2025-01-01T10:00:00Z')]);
      const mark = await store.markPendingChanges('prod/net');
      // Kept while the check plans; made earlier than what the check marked, yet not its to answer.
      await store.addPendingChanges('prod/net', [change('0000e000-0000', '2025-01-01T09:00:00Z')]);
      expect(ids(await store.readPendingChanges('prod/net', mark))).toEqual(['0000e001-0000']);
      expect(await store.dropPendingChanges('prod/net', mark)).toBe(1);
      const next = await target.open();
      expect(ids(await next.readPendingChanges('prod/net'))).toEqual(['0000e000-0000']);
      expect(ids(await next.readPendingChanges('dev/app'))).toEqual(['0000e009-0000']);
      expect(await next.markPendingChanges('prod/net')).toBeGreaterThan(mark);
    });

    it('drops changes no check took before a time, and keeps the later ones', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      await store.addPendingChanges('removed/stack', [change('0000e001-0000', '2025-01-01T00:00:00Z')]);
      clock.advance(3600_000);
      const cut = clock.now();
      await store.addPendingChanges('prod/net', [change('0000e002-0000', '2025-01-01T01:00:00Z')]);
      expect(await store.prunePendingChanges(cut)).toBe(1);
      expect(ids(await store.readPendingChanges('removed/stack'))).toEqual([]);
      expect(ids(await store.readPendingChanges('prod/net'))).toEqual(['0000e002-0000']);
    });

    it('lists the stacks whose changes came before a time and still wait, each once', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      await store.addPendingChanges('prod/net', [
        change('0000e001-0000', '2025-01-01T00:00:00Z'),
        change('0000e002-0000', '2025-01-01T00:01:00Z'),
      ]);
      await store.addPendingChanges('dev/app', [change('0000e003-0000', '2025-01-01T00:00:00Z')]);
      await store.addPendingChanges('prod/answered', [change('0000e004-0000', '2025-01-01T00:00:00Z')]);
      await store.dropPendingChanges('prod/answered', await store.markPendingChanges('prod/answered'));
      clock.advance(60_000);
      const started = clock.now();
      await store.addPendingChanges('prod/later', [change('0000e005-0000', '2025-01-01T00:02:00Z')]);
      expect(await store.listWaitingStacks(started)).toEqual(['dev/app', 'prod/net']);
      clock.advance(1);
      expect(await store.listWaitingStacks(clock.now())).toEqual(['dev/app', 'prod/later', 'prod/net']);
    });

    it('keeps the newest PENDING_CHANGES_PER_STACK of a stack: who changed it last is never pushed out', async () => {
      const store = await target.open();
      const minute = (i: number) => new Date(Date.UTC(2025, 0, 1, 10, i)).toISOString();
      const burst = Array.from({ length: PENDING_CHANGES_PER_STACK + 5 }, (_, i) =>
        change(`0000${String(i).padStart(4, '0')}-burst`, minute(i)),
      );
      expect(await store.addPendingChanges('prod/net', burst.slice(5))).toBe(PENDING_CHANGES_PER_STACK);
      // Older calls delivered late do not push out newer ones.
      await store.addPendingChanges('prod/net', burst.slice(0, 5));
      const newest = change('9999-newest', minute(PENDING_CHANGES_PER_STACK + 10));
      expect(await store.addPendingChanges('prod/net', [newest])).toBe(1);
      const kept = ids(await store.readPendingChanges('prod/net'));
      expect(kept).toHaveLength(PENDING_CHANGES_PER_STACK);
      expect(kept.at(-1)).toBe('9999-newest');
      expect(kept[0]).toBe(burst[6]!.eventId);
    });

    it('reads past a row it cannot read (another version wrote it), counts it, and drops it when answered', async () => {
      const store = await target.open();
      await store.addPendingChanges('prod/net', [change('0000e001-0000', '2025-01-01T10:00:00Z')]);
      await target.execRaw(
        `INSERT INTO pending_changes (stack, event_id, at, received_at, change) VALUES ('prod/net', 'bad', 0, 0, '{"principal": 3}')`,
      );
      await store.addPendingChanges('prod/net', [change('0000e002-0000', '2025-01-01T10:05:00Z')]);
      const read = await store.readPendingChanges('prod/net');
      expect(ids(read)).toEqual(['0000e001-0000', '0000e002-0000']);
      expect(read.unreadable).toBe(1);
      expect(await store.dropPendingChanges('prod/net', await store.markPendingChanges('prod/net'))).toBe(3);
    });
  });
}
