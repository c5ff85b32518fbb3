import { randomBytes } from 'node:crypto';
import { DriftgateError } from '../../domain/errors.js';
import {
  formatPoolToken,
  parsePoolToken,
  POOL_TOKEN_NAME_PATTERN,
  type PoolToken,
  poolTokenHash,
  poolTokenMatches,
} from '../../domain/pool/pool-token.js';
import type { PoolTokenStore } from '../../ports/pool-tokens.js';
import type { RunStore } from '../../ports/store.js';

export interface PoolTokenDeps {
  tokens: PoolTokenStore;
  /** Where creating and revoking a token is recorded. */
  audit: Pick<RunStore, 'appendAudit'>;
  now: () => Date;
  /** Random bytes; tests may pass their own. */
  random?: (size: number) => Buffer;
}

/** Who called the agent API, once their token was checked. */
export interface AgentIdentity {
  pool: string;
  tokenId: string;
}

export type Authenticated =
  | { ok: true; agent: AgentIdentity }
  /** `malformed`: not a pool token at all; `unknown`: no such id, or the secret is not its. */
  | { ok: false; reason: 'malformed' | 'unknown' | 'revoked'; tokenId?: string };

/**
 * Creates a token for `pool`: its text is returned once and never stored, only its sha256. Several tokens
 * per pool may live at once, so a pool's workers move to a new one before the old is revoked.
 */
export async function createPoolToken(
  deps: PoolTokenDeps,
  request: { pool: string; name: string; by: string },
): Promise<{ token: string; record: PoolToken }> {
  if (!POOL_TOKEN_NAME_PATTERN.test(request.name))
    throw new DriftgateError(
      'CONFIG_INVALID',
      `token name "${request.name}" must be letters, digits, '.', '_' or '-', at most 63, starting with a letter or digit`,
    );
  const random = deps.random ?? randomBytes;
  const id = random(8).toString('hex');
  const secret = random(32).toString('base64url');
  const record: PoolToken = {
    id,
    pool: request.pool,
    name: request.name,
    createdAt: deps.now(),
    createdBy: request.by,
  };
  await deps.tokens.addPoolToken({ ...record, hash: poolTokenHash(secret) });
  await deps.audit.appendAudit({
    at: record.createdAt,
    actor: request.by,
    action: 'pool_token_created',
    detail: { pool: record.pool, tokenId: id, name: record.name },
  });
  return { token: formatPoolToken(id, secret), record };
}

/** Revokes a token at once: the next request that presents it is refused. */
export async function revokePoolToken(
  deps: PoolTokenDeps,
  request: { pool: string; id: string; by: string },
): Promise<PoolToken | undefined> {
  const at = deps.now();
  const revoked = await deps.tokens.revokePoolToken(request.pool, request.id, at, request.by);
  if (revoked)
    await deps.audit.appendAudit({
      at,
      actor: request.by,
      action: 'pool_token_revoked',
      detail: { pool: request.pool, tokenId: request.id, name: revoked.name },
    });
  return revoked;
}

/** The pool a presented token belongs to, when it is a live token of driftgate's. */
export async function authenticatePoolToken(
  deps: Pick<PoolTokenDeps, 'tokens' | 'now'>,
  presented: string,
): Promise<Authenticated> {
  const parsed = parsePoolToken(presented);
  if (!parsed) return { ok: false, reason: 'malformed' };
  const stored = await deps.tokens.findPoolToken(parsed.id);
  if (!stored || !poolTokenMatches(parsed.secret, stored.hash)) return { ok: false, reason: 'unknown' };
  if (stored.revokedAt) return { ok: false, reason: 'revoked', tokenId: stored.id };
  await deps.tokens.touchPoolToken(stored.id, deps.now());
  return { ok: true, agent: { pool: stored.pool, tokenId: stored.id } };
}
