import { z } from 'zod';
import type { PoolToken, PoolTokenStore } from '../../../ports/pool-tokens.js';
import { openMigratedPool, type PostgresConnection } from './connect.js';
import { changes, firstRow, type Queryable, rows } from './postgres-context.js';

const TokenRow = z.object({
  id: z.string(),
  pool: z.string(),
  name: z.string(),
  hash: z.string(),
  created_at: z.coerce.number(),
  created_by: z.string(),
  last_used_at: z.coerce.number().nullable(),
  revoked_at: z.coerce.number().nullable(),
  revoked_by: z.string().nullable(),
});

function token(row: unknown): PoolToken & { hash: string } {
  const r = TokenRow.parse(row);
  return {
    id: r.id,
    pool: r.pool,
    name: r.name,
    hash: r.hash,
    createdAt: new Date(r.created_at),
    createdBy: r.created_by,
    ...(r.last_used_at !== null ? { lastUsedAt: new Date(r.last_used_at) } : {}),
    ...(r.revoked_at !== null ? { revokedAt: new Date(r.revoked_at) } : {}),
    ...(r.revoked_by !== null ? { revokedBy: r.revoked_by } : {}),
  };
}

/** Without the hash: what lists and answers show. */
function shown({ hash: _hash, ...rest }: PoolToken & { hash: string }): PoolToken {
  return rest;
}

/** A use is written at most once a minute per token. */
const TOUCH_EVERY_MS = 60_000;

export function poolTokensOn(db: Queryable, close: () => Promise<void>): PoolTokenStore {
  const ctx = { db };
  return {
    async addPoolToken(t) {
      await db.query(
        `INSERT INTO pool_tokens (id, pool, name, hash, created_at, created_by) VALUES ($1, $2, $3, $4, $5, $6)`,
        [t.id, t.pool, t.name, t.hash, t.createdAt.getTime(), t.createdBy],
      );
    },
    async listPoolTokens(pool) {
      const found = await rows(
        ctx,
        `SELECT * FROM pool_tokens WHERE ($1::text IS NULL OR pool = $1) ORDER BY created_at DESC, id`,
        [pool ?? null],
      );
      return found.map((row) => shown(token(row)));
    },
    async findPoolToken(id) {
      const row = await firstRow(ctx, 'SELECT * FROM pool_tokens WHERE id = $1', [id]);
      return row ? token(row) : undefined;
    },
    async touchPoolToken(id, at) {
      await changes(
        ctx,
        'UPDATE pool_tokens SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $3)',
        [id, at.getTime(), at.getTime() - TOUCH_EVERY_MS],
      );
    },
    async revokePoolToken(pool, id, at, by) {
      await changes(
        ctx,
        'UPDATE pool_tokens SET revoked_at = $3, revoked_by = $4 WHERE pool = $1 AND id = $2 AND revoked_at IS NULL',
        [pool, id, at.getTime(), by],
      );
      const row = await firstRow(ctx, 'SELECT * FROM pool_tokens WHERE pool = $1 AND id = $2', [pool, id]);
      return row ? shown(token(row)) : undefined;
    },
    close,
  };
}

/** The pool tokens on the config's Postgres store, the schema brought up to date first; a small pool of its own. */
export async function openPostgresPoolTokens(options: PostgresConnection): Promise<PoolTokenStore> {
  const { pool, end } = await openMigratedPool('url' in options ? { ...options, poolSize: 2 } : options);
  return poolTokensOn(pool, end);
}
