import type { RunStore } from '../../../ports/store.js';
import { indexFilter, resourceIndexValues, toStackResourceIndex } from '../shared/resource-index-row.js';
import { type PgContext, rows } from './postgres-context.js';

/** Each stack's part of the change-event index: one row per stack, replaced by its next state. */
export function resourceIndexQueries(ctx: PgContext): Pick<RunStore, 'saveResourceIndex' | 'listResourceIndexes'> {
  return {
    async saveResourceIndex(entry) {
      await ctx.db.query(
        `INSERT INTO resource_index (stack, serial, lineage, resources, updated_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (stack) DO UPDATE SET serial = excluded.serial, lineage = excluded.lineage,
           resources = excluded.resources, updated_at = excluded.updated_at`,
        resourceIndexValues(entry, ctx.nowMs()),
      );
    },
    async listResourceIndexes(query = {}) {
      let n = 0;
      const { where, values } = indexFilter(query, () => `$${++n}`);
      return (await rows(ctx, `SELECT * FROM resource_index ${where} ORDER BY stack`, values)).map(
        toStackResourceIndex,
      );
    },
  };
}
