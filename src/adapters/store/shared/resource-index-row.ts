import { z } from 'zod';
import { IndexedResources, type StackResourceIndex } from '../../../domain/change-events/resource-index.js';

/** A `resource_index` row, the same columns on SQLite and Postgres; JSON comes back as text from both. */
const ResourceIndexRow = z.object({
  stack: z.string(),
  serial: z.number().nullable(),
  lineage: z.string().nullable(),
  resources: z.string(),
  updated_at: z.number(),
});

export function resourceIndexValues(
  entry: Omit<StackResourceIndex, 'updatedAt'>,
  nowMs: number,
): [string, number | null, string | null, string, number] {
  return [entry.stack, entry.serial ?? null, entry.lineage ?? null, JSON.stringify(entry.resources), nowMs];
}

/** A row another version may have written: its resources are checked as the index reads them. */
export function toStackResourceIndex(raw: unknown): StackResourceIndex {
  const row = ResourceIndexRow.parse(raw);
  const resources = IndexedResources.element.omit({ stack: true }).array().parse(JSON.parse(row.resources));
  return {
    stack: row.stack,
    ...(row.serial !== null ? { serial: row.serial } : {}),
    ...(row.lineage !== null ? { lineage: row.lineage } : {}),
    resources,
    updatedAt: new Date(row.updated_at),
  };
}

/** The WHERE clause of `listResourceIndexes`'s query, with `param` writing each placeholder in its dialect. */
export function indexFilter(
  query: { stack?: string; updatedSince?: Date },
  param: () => string,
): { where: string; values: (string | number)[] } {
  const clauses: string[] = [];
  const values: (string | number)[] = [];
  if (query.stack !== undefined) {
    clauses.push(`stack = ${param()}`);
    values.push(query.stack);
  }
  if (query.updatedSince !== undefined) {
    clauses.push(`updated_at >= ${param()}`);
    values.push(query.updatedSince.getTime());
  }
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', values };
}
