import type { PoolStatus } from '../services/pools/pool-status.js';
import { createUnservedPoolsWatch } from '../services/pools/unserved-pools.js';
import { poolNoticePoster } from '../slack/notifier/pool-notices.js';
import { poolChannel } from '../slack/routing.js';
import type { AppContext } from './context.js';

/**
 * "No worker for pool prod for 5 min": looked at by the leader every `everyMs`, said in Slack once per
 * episode.
 */
export function watchUnservedPools(
  context: Pick<AppContext, 'config' | 'store' | 'logger' | 'deps'>,
  pools: PoolStatus,
  leading: () => boolean,
  everyMs = 10_000,
): { stop(): void } {
  const { config, store, logger, deps } = context;
  const slack = config.slack;
  const runners = config.runners?.type === 'workers' ? config.runners : undefined;
  const unserved = slack
    ? createUnservedPoolsWatch({
        status: pools,
        afterMs: runners?.unservedAlertAfter ?? 300_000,
        now: deps.now,
        notify: poolNoticePoster({ store, channelOf: (pool) => poolChannel(slack, config.stacks, pool) }),
      })
    : undefined;
  const timer = setInterval(() => {
    if (!unserved || !leading()) return;
    unserved.check().catch((err: unknown) => logger.warn({ err }, 'looking at the worker pools failed'));
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
