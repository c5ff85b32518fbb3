import type { AllMiddlewareArgs, RespondFn } from '@slack/bolt';
import type { z } from 'zod';
import { payloadProblem } from '../payloads.js';
import type { SlackDeps } from '../slack-deps.js';

/** What Bolt hands a listener of commands, buttons or modals: `respond` where Slack gave a response_url. */
type AckArgs = AllMiddlewareArgs & { ack: () => Promise<void>; body: unknown; respond?: RespondFn };

/**
 * The payload as `schema` reads it. A malformed one is logged with what was wrong in it (`what` names it,
 * e.g. `/drift payload`) and dropped: nobody can be answered from it.
 */
export function readPayload<T>(
  deps: Pick<SlackDeps, 'logger'>,
  schema: z.ZodType<T>,
  raw: unknown,
  what: string,
): T | undefined {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  deps.logger.warn({ problem: payloadProblem(parsed.error) }, `malformed ${what}; ignored`);
  return undefined;
}

/** A listener that acks at once (Slack waits 3 s), then hands the payload `schema` reads to `handle`. */
export function ackThenRead<T>(
  deps: Pick<SlackDeps, 'logger'>,
  schema: z.ZodType<T>,
  what: string,
  handle: (payload: T, respond: RespondFn | undefined) => void,
): (args: AckArgs) => Promise<void> {
  return async ({ ack, body, respond }) => {
    await ack();
    const payload = readPayload(deps, schema, body, what);
    if (payload !== undefined) handle(payload, respond);
  };
}
