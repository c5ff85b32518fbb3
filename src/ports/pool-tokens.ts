import type { PoolToken } from '../domain/pool/pool-token.js';

export type { PoolToken };

/**
 * The pools' tokens, in the control plane's Postgres store (`runners: {type: workers}`): hashed, several
 * per pool (rotation), revoked rather than deleted so that `list` and the audit still name them.
 */
export interface PoolTokenStore {
  addPoolToken(token: Omit<PoolToken, 'lastUsedAt' | 'revokedAt' | 'revokedBy'> & { hash: string }): Promise<void>;
  /** Every token, or a pool's, newest first; revoked ones too. */
  listPoolTokens(pool?: string): Promise<PoolToken[]>;
  /** The token with `id` and its stored hash, for authentication. */
  findPoolToken(id: string): Promise<(PoolToken & { hash: string }) | undefined>;
  /** Records a use; at most one write a minute per token (every long poll authenticates). */
  touchPoolToken(id: string, at: Date): Promise<void>;
  /** Revokes a pool's token; undefined when the pool has no such token. Revoking twice keeps the first. */
  revokePoolToken(pool: string, id: string, at: Date, by: string): Promise<PoolToken | undefined>;
  close(): Promise<void>;
}
