/**
 * The parts of Slack's interaction payloads driftgate reads, checked with zod: a payload that does not
 * have them is logged and dropped (after its ack), never half-handled.
 */
import { z } from 'zod';

export const ButtonClick = z
  .object({
    type: z.literal('block_actions'),
    user: z.object({ id: z.string().min(1), username: z.string().optional(), name: z.string().optional() }),
    trigger_id: z.string().min(1).optional(),
    response_url: z.url().optional(),
    container: z
      .object({
        type: z.string(),
        channel_id: z.string().optional(),
        message_ts: z.string().optional(),
        view_id: z.string().optional(),
      })
      .optional(),
    actions: z.array(z.object({ action_id: z.string(), value: z.string().min(1).max(200).optional() })).min(1),
  })
  .transform((p) => ({
    userId: p.user.id,
    /** The Slack handle, when the payload has it: how a PR on GitHub names who asked. */
    userName: p.user.username ?? p.user.name,
    actionId: p.actions[0]!.action_id,
    value: p.actions[0]!.value,
    triggerId: p.trigger_id,
    responseUrl: p.response_url,
    /** Where the button was: a message (channel, ts) or a view such as the App Home. */
    message:
      p.container?.channel_id && p.container.message_ts
        ? { channel: p.container.channel_id, ts: p.container.message_ts }
        : undefined,
    inView: p.container?.type === 'view',
  }));
export type ButtonClick = z.infer<typeof ButtonClick>;

export const RejectSubmission = z
  .object({
    user: z.object({ id: z.string().min(1) }),
    view: z.object({
      private_metadata: z.string().min(1),
      state: z.object({
        values: z.record(z.string(), z.record(z.string(), z.object({ value: z.string().nullish() }).loose())),
      }),
    }),
  })
  .transform((p) => ({ userId: p.user.id, runId: p.view.private_metadata, values: p.view.state.values }));

export const SlashCommand = z
  .object({
    user_id: z.string().min(1),
    channel_id: z.string().min(1),
    text: z.string().default(''),
    response_url: z.url().optional(),
  })
  .transform((p) => ({ userId: p.user_id, channelId: p.channel_id, text: p.text, responseUrl: p.response_url }));
export type SlashCommand = z.infer<typeof SlashCommand>;

export const HomeOpened = z.object({ user: z.string().min(1), tab: z.string().optional() });

/** "at actions.0.value, user.id" */
export function payloadProblem(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}
