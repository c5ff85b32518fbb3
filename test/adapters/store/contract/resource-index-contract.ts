import { describe, expect, it } from 'vitest';
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

    it('refuses a row it cannot read rather than matching events against it', async () => {
      const store = await target.open();
      await target.execRaw(
        `INSERT INTO resource_index (stack, serial, lineage, resources, updated_at) VALUES ('x', 1, 'l', '[{"address": 3}]', 0)`,
      );
      await expect(store.listResourceIndexes()).rejects.toThrow(/address/);
    });
  });
}
