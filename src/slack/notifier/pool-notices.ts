import type { PoolNotice } from '../../domain/pool/pool-notices.js';
import type { SlackStore } from '../../ports/slack-store.js';
import { renderPoolNotice } from '../blocks/render-pool-notice.js';

export interface PoolNoticeDeps {
  store: Pick<SlackStore, 'enqueue'>;
  /** The pool's channel: `poolChannel(config.slack, config.stacks, pool)`. */
  channelOf(pool: string): string;
}

/**
 * Posts pool notices through the outbox, so a Slack outage delays them instead of losing them. One key
 * per pool: a follow-up is never delivered before the notice it follows.
 */
export function poolNoticePoster(deps: PoolNoticeDeps): (notice: PoolNotice) => Promise<void> {
  return async (notice) => {
    await deps.store.enqueue({
      key: `pool:${notice.pool}`,
      method: 'chat.postMessage',
      payload: { channel: deps.channelOf(notice.pool), ...renderPoolNotice(notice) },
    });
  };
}
