import type { StoreContext } from './sqlite-context.js';

/**
 * `SELECT * FROM table WHERE …` for optional equality filters: an undefined filter is left out, an array
 * becomes `IN (…)`, an empty array matches nothing. Column names come from our code, never from input.
 */
export function selectFiltered(
  ctx: StoreContext,
  table: string,
  filters: Record<string, string | number | readonly string[] | undefined>,
  orderBy: string,
  limit?: number,
): unknown[] {
  const where: string[] = [];
  const params: unknown[] = [];
  for (const [column, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    if (typeof value === 'object') {
      if (value.length === 0) return [];
      where.push(`${column} IN (${value.map(() => '?').join(', ')})`);
      params.push(...value);
    } else {
      where.push(`${column} = ?`);
      params.push(value);
    }
  }
  if (limit !== undefined) params.push(limit);
  const sql = `SELECT * FROM ${table} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY ${orderBy} ${limit !== undefined ? 'LIMIT ?' : ''}`;
  return ctx.stmt(sql).all(...params);
}
