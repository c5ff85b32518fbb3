import { errorMessage } from '../domain/errors.js';
import type { PoolHealth } from '../domain/pool/pool-health.js';
import type { PoolsAt } from './blocks/render-pools.js';
import type { Logger } from '../ports/logger.js';

export interface PoolsViewDeps {
  /** Set with `runners: {type: workers}`: each pool's health. Absent: there are no pools to show. */
  pools?: () => Promise<PoolHealth[]>;
  now: () => Date;
  logger: Pick<Logger, 'warn'>;
}

/**
 * The pools for `/drift status` and the App Home. A queue or registry that does not answer leaves the
 * stacks shown, with the pools said to be unreadable, rather than failing the whole reply.
 */
export async function readPoolsView(deps: PoolsViewDeps): Promise<PoolsAt | undefined> {
  if (!deps.pools) return undefined;
  try {
    const view = await deps.pools();
    return { view, now: deps.now() };
  } catch (err) {
    deps.logger.warn({ err: errorMessage(err) }, 'worker pools could not be read');
    return { view: 'unavailable', now: deps.now() };
  }
}
