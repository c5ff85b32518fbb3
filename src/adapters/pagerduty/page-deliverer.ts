import { errorMessage } from '../../domain/errors.js';
import { withSlackLink, type PageEventBody, type PageSlackLink } from '../../domain/oncall/page-event.js';
import { PAGE_NAMESPACE, PageItemPayload } from '../../domain/oncall/page-item.js';
import type { OutboxDeliverer, PageSlackLinks } from '../../ports/outbox.js';
import { createPagerdutyClient, type PagerdutyClient, type PagerdutyEvent } from './client.js';
import type { PagerdutySettings } from './env.js';
import { PagerdutyError } from './pagerduty-error.js';

export interface PageDelivererDeps {
  client: PagerdutyClient;
  /** See PagerdutySettings.routingKey. */
  routingKey(name: string): string | undefined;
  slack?: PageSlackLinks;
}

/**
 * Delivers the outbox's `pagerduty.enqueue` items: adds the routing key from the environment and sends.
 * Errors name the variable, never the key, since they are stored and logged.
 *
 * A trigger links to the run's Slack message if it is posted by now, else names the channel it will be
 * in. The link is looked up, never waited for: the alert may sit in a digest window, and a page must not.
 */
export function createPageDeliverer(deps: PageDelivererDeps): OutboxDeliverer {
  async function slackLink(run: { id: string; stack: string } | undefined): Promise<PageSlackLink | undefined> {
    if (!run || !deps.slack) return undefined;
    const message = await deps.slack.messageLink(run.id);
    return message ? { message } : { channel: deps.slack.channelOf(run.stack) };
  }

  return {
    async deliver(item) {
      const page = PageItemPayload.safeParse(item.payload);
      if (!page.success)
        return {
          kind: 'dead',
          error: `page payload invalid at ${page.error.issues.map((i) => i.path.join('.')).join(', ')}`,
        };
      const { routingKeyEnv, run } = page.data;
      const routingKey = deps.routingKey(routingKeyEnv);
      // Checked at startup for the configured names; a page queued under an older config may name another.
      if (!routingKey) return { kind: 'dead', error: `no routing key in env ${routingKeyEnv}` };
      // Only loosely checked (PagerDuty refuses what is wrong): a trigger without a payload goes out as it is.
      const event = page.data.event as PageEventBody;
      const { payload } = page.data.event;
      const linked =
        typeof payload === 'object' && payload !== null ? withSlackLink(event, await slackLink(run)) : event;
      try {
        await deps.client.send({ ...linked, routing_key: routingKey } as PagerdutyEvent);
        return { kind: 'delivered' };
      } catch (err) {
        if (!(err instanceof PagerdutyError)) return { kind: 'retry', error: errorMessage(err) };
        if (!err.retriable) return { kind: 'dead', error: err.message };
        const { retryAfterMs } = err.details;
        return retryAfterMs === undefined
          ? { kind: 'retry', error: err.message }
          : { kind: 'retry', error: err.message, retryAfterMs };
      }
    },
  };
}

/** `deliverers` for createOutboxWorker in a process with PagerDuty on; `slack` when Slack is configured too. */
export function pagerdutyDeliverers(
  settings: PagerdutySettings,
  slack?: PageSlackLinks,
): Record<string, OutboxDeliverer> {
  const client = createPagerdutyClient({ eventsUrl: settings.eventsUrl });
  return {
    [PAGE_NAMESPACE]: createPageDeliverer({ client, routingKey: settings.routingKey, ...(slack ? { slack } : {}) }),
  };
}
