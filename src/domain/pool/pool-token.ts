import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * A pool token: what a worker presents to the control plane's agent API, and all it holds of driftgate.
 * It reads `dgpt_<id>_<secret>`: the id finds the record (and is safe to show, log and revoke by), the
 * secret is 32 random bytes whose sha256 alone is stored. A high-entropy secret needs no slow hash: no
 * dictionary reaches it, and a lookup per request stays cheap.
 */
export interface PoolToken {
  id: string;
  pool: string;
  /** What the operator called it (`prod-runner-a`, `rotation-2027-01`): shown by `pool token list`. */
  name: string;
  createdAt: Date;
  createdBy: string;
  /** Last authenticated use, to a minute: a token nobody uses any more is safe to revoke. */
  lastUsedAt?: Date;
  revokedAt?: Date;
  revokedBy?: string;
}

export const POOL_TOKEN_PREFIX = 'dgpt_';
const TOKEN_PATTERN = /^dgpt_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/** The token's text from its id and secret (random bytes, base64url). */
export function formatPoolToken(id: string, secret: string): string {
  return `${POOL_TOKEN_PREFIX}${id}_${secret}`;
}

/** The id and secret of a presented token, or undefined when it is not one (a typo, another product's). */
export function parsePoolToken(text: string): { id: string; secret: string } | undefined {
  const match = TOKEN_PATTERN.exec(text.trim());
  return match ? { id: match[1]!, secret: match[2]! } : undefined;
}

export function poolTokenHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Whether `secret` is the one whose hash was stored; in constant time. */
export function poolTokenMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(poolTokenHash(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** A token's name: shown in lists and logs, so a short plain label. */
export const POOL_TOKEN_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
