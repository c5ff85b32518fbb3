import { describe, expect, it } from 'vitest';
import { type MatchedChange, PENDING_CHANGES_PER_STACK } from '../../../../src/domain/change-events/intake.js';
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
    const change = (eventId: string, at: string, address = 'aws_s3_bucket.logs'): MatchedChange => ({
      principal: { kind: 'iam_user', name: 'alice', display: 'alice (IAM user)' },
      how: 'console',
      eventName: 'PutBucketTagging',
      eventSource: 's3.amazonaws.com',
      at: new Date(at),
      eventId,
      account: '111122223333',
      region: 'eu-west-1',
      consoleUrl: `https://eu-west-1.console.aws.amazon.com/cloudtrail/home?region=eu-west-1#/events/${eventId}`,
      resources: [{ stack: 'prod/net', address }],
    });

    it('keeps each event once per stack for another connection, which takes them oldest first, once', async () => {
      const store = await target.open();
      const later = change('0000e002-0000', '2025-01-01T10:05:00Z', 'aws_s3_object.a["x"]');
      const earlier = change('0000e001-0000', '2025-01-01T10:00:00Z');
      expect(await store.addPendingChanges('prod/net', [later, earlier])).toBe(2);
      // A redelivered event (SQS, an EventBridge retry) waits once.
      expect(await store.addPendingChanges('prod/net', [earlier])).toBe(0);
      expect(await store.addPendingChanges('dev/app', [earlier])).toBe(1);

      const worker = await target.open();
      expect(await worker.takePendingChanges('prod/net')).toEqual([earlier, later]);
      expect(await worker.takePendingChanges('prod/net')).toEqual([]);
      expect(await store.takePendingChanges('dev/app')).toEqual([earlier]);
    });

    it('drops changes no check took before a time, and keeps the later ones', async () => {
      const clock = manualClock();
      const store = await target.open({ now: clock.now });
      await store.addPendingChanges('removed/stack', [change('0000e001-0000', '2025-01-01T00:00:00Z')]);
      clock.advance(3600_000);
      const cut = clock.now();
      await store.addPendingChanges('prod/net', [change('0000e002-0000', '2025-01-01T01:00:00Z')]);
      expect(await store.prunePendingChanges(cut)).toBe(1);
      expect(await store.takePendingChanges('removed/stack')).toEqual([]);
      expect(await store.takePendingChanges('prod/net')).toHaveLength(1);
    });

    it('keeps at most PENDING_CHANGES_PER_STACK for a stack: the rest of a burst is not kept', async () => {
      const store = await target.open();
      const burst = Array.from({ length: PENDING_CHANGES_PER_STACK + 5 }, (_, i) =>
        change(`0000${String(i).padStart(4, '0')}-burst`, '2025-01-01T10:00:00Z'),
      );
      expect(await store.addPendingChanges('prod/net', burst.slice(0, 10))).toBe(10);
      expect(await store.addPendingChanges('prod/net', burst.slice(10))).toBe(PENDING_CHANGES_PER_STACK - 10);
      expect(await store.takePendingChanges('prod/net')).toHaveLength(PENDING_CHANGES_PER_STACK);
    });
  });
}
