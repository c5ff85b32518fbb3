import type { RunStore } from '../../../ports/store.js';
import type { StoreContext } from './sqlite-context.js';
import { indexFilter, resourceIndexValues, toStackResourceIndex } from '../shared/resource-index-row.js';
import type { Synchronous } from './synchronous.js';

/** Each stack's part of the change-event index: one row per stack, replaced by its next state. */
export function resourceIndexQueries(
  ctx: StoreContext,
): Pick<Synchronous<RunStore>, 'saveResourceIndex' | 'listResourceIndexes'> {
  return {
    saveResourceIndex(entry) {
      ctx
        .stmt(
          `INSERT INTO resource_index (stack, serial, lineage, resources, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (stack) DO UPDATE SET serial = excluded.serial, lineage = excluded.lineage,
             resources = excluded.resources, updated_at = excluded.updated_at`,
        )
        .run(...resourceIndexValues(entry, ctx.nowMs()));
    },
    listResourceIndexes(query = {}) {
      const { where, values } = indexFilter(query, () => '?');
      return ctx
        .stmt(`SELECT * FROM resource_index ${where} ORDER BY stack`)
        .all(...values)
        .map(toStackResourceIndex);
    },
  };
}
