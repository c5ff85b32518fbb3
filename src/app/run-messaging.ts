import { inMemoryHolder } from '../adapters/store/shared/process-owner.js';
import { runContent } from '../services/notify/run-content.js';
import { createNotifier } from '../slack/notifier/notifier.js';
import { createRunMessages } from '../slack/notifier/run-messages.js';
import type { AppContext } from './context.js';

/**
 * A run's Slack message and the notifier that keeps it current from the bus's events, queued in the
 * outbox: for serve's Slack app and for a CLI decision alike (serve delivers what the CLI queues).
 */
export function runMessaging(
  context: Pick<AppContext, 'config' | 'store' | 'deps' | 'stack' | 'logger'>,
  options: { canRemediate: boolean },
) {
  const { config, store, logger } = context;
  const messages = createRunMessages({
    config,
    store,
    content: runContent(context.deps),
    stack: context.stack,
    canRemediate: options.canRemediate,
  });
  const notifier = createNotifier({
    config,
    store,
    bus: context.deps.bus,
    messages,
    stack: context.stack,
    now: context.deps.now,
    logger,
    holder: inMemoryHolder(),
  });
  return { messages, notifier };
}
