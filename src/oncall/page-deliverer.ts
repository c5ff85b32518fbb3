import { createPagerdutyClient, type PagerdutyClient, type PagerdutyEvent } from '../adapters/pagerduty/client.js';
import type { PagerdutySettings } from '../adapters/pagerduty/env.js';
import { PagerdutyError } from '../adapters/pagerduty/pagerduty-error.js';
import { errorMessage } from '../domain/errors.js';
import type { OutboxDeliverer } from '../slack/outbox/worker.js';
import { PAGE_NAMESPACE, PageItemPayload } from './page-item.js';

export interface PageDelivererDeps {
  client: PagerdutyClient;
  /** See PagerdutySettings.routingKey. */
  routingKey(name: string): string | undefined;
}

/**
 * Delivers the outbox's `pagerduty.enqueue` items: adds the routing key from the environment and sends.
 * Errors name the variable, never the key, since they are stored and logged.
 */
export function createPageDeliverer(deps: PageDelivererDeps): OutboxDeliverer {
  return {
    async deliver(item) {
      const page = PageItemPayload.safeParse(item.payload);
      if (!page.success) return { kind: 'dead', error: `page payload invalid at ${page.error.issues.map((i) => i.path.join('.')).join(', ')}` };
      const { routingKeyEnv, event } = page.data;
      const routingKey = deps.routingKey(routingKeyEnv);
      // Checked at startup for the configured names; a page queued under an older config may name another.
      if (!routingKey) return { kind: 'dead', error: `no routing key in env ${routingKeyEnv}` };
      try {
        await deps.client.send({ ...event, routing_key: routingKey } as PagerdutyEvent);
        return { kind: 'delivered' };
      } catch (err) {
        if (!(err instanceof PagerdutyError)) return { kind: 'retry', error: errorMessage(err) };
        if (!err.retriable) return { kind: 'dead', error: err.message };
        const { retryAfterMs } = err.details;
        return retryAfterMs === undefined ? { kind: 'retry', error: err.message } : { kind: 'retry', error: err.message, retryAfterMs };
      }
    },
  };
}

/** `deliverers` for createOutboxWorker in a process with PagerDuty on. */
export function pagerdutyDeliverers(settings: PagerdutySettings): Record<string, OutboxDeliverer> {
  const client = createPagerdutyClient({ eventsUrl: settings.eventsUrl });
  return { [PAGE_NAMESPACE]: createPageDeliverer({ client, routingKey: settings.routingKey }) };
}
