import { z } from 'zod';
import type { PageEventBody } from './page-event.js';

/** The outbox method of a page; the worker hands the `pagerduty` namespace to the page deliverer. */
export const PAGE_NAMESPACE = 'pagerduty';
export const PAGE_METHOD = `${PAGE_NAMESPACE}.enqueue`;

/**
 * A page as the outbox keeps it: the event without its routing key, and the name of the variable that
 * holds the key, resolved at delivery. So the SQLite file never holds a key, and a rotated one applies
 * to pages still queued.
 */
export interface PageItemPayload {
  routingKeyEnv: string;
  event: PageEventBody;
  /** On a trigger: its run, whose Slack message the page links to if it is posted by delivery. */
  run?: { id: string; stack: string };
}

/** Enough to send it: PagerDuty itself checks the rest, and answers 400 for what it refuses. */
export const PageItemPayload = z.object({
  routingKeyEnv: z.string().min(1),
  event: z.looseObject({ event_action: z.enum(['trigger', 'resolve']), dedup_key: z.string().min(1) }),
  // Absent from pages queued before links were added at delivery: those go out without one.
  run: z.object({ id: z.string().min(1), stack: z.string().min(1) }).optional(),
});

/** Pages of one stack go out in order (a trigger before its resolve), apart from its Slack messages. */
export function pageItem(stackName: string, payload: PageItemPayload) {
  return {
    key: `${PAGE_NAMESPACE}:${stackName}`,
    method: PAGE_METHOD,
    payload: { ...payload } as Record<string, unknown>,
  };
}
