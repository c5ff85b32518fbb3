import { openPoolTokens, openStore } from '../../adapters/store/open-store.js';
import type { DriftgateConfig } from '../../config/schema.js';
import type { PoolToken } from '../../domain/pool/pool-token.js';
import { createPoolToken, revokePoolToken } from '../../services/pools/pool-tokens.js';

/** `driftgate pool token create|list|revoke`: the pool token use cases on the config's store, audited there. */
export interface PoolTokenAdmin {
  list(pool?: string): Promise<PoolToken[]>;
  create(request: { pool: string; name: string; by: string }): Promise<{ token: string; record: PoolToken }>;
  revoke(request: { pool: string; id: string; by: string }): Promise<PoolToken | undefined>;
  close(): Promise<void>;
}

export async function openPoolTokenAdmin(config: Pick<DriftgateConfig, 'dataDir' | 'store'>): Promise<PoolTokenAdmin> {
  const tokens = await openPoolTokens(config);
  const audit = await openStore(config).catch(async (err: unknown) => {
    await tokens.close();
    throw err;
  });
  const deps = { tokens, audit, now: () => new Date() };
  return {
    list: (pool) => tokens.listPoolTokens(pool),
    create: (request) => createPoolToken(deps, request),
    revoke: (request) => revokePoolToken(deps, request),
    async close() {
      await tokens.close();
      await audit.close();
    },
  };
}
