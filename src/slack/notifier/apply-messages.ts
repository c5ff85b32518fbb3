/**
 * Apply events -> the run's message and thread: "Applying…", then "Applied in 34 s, verified: no drift"
 * or "Apply failed: see thread" with terraform's masked output in the thread, "Expired" when the plan can
 * no longer be applied, and the reason plus a next step when the apply could not start.
 */
import type { EventBus } from '../../services/event-bus.js';
import { escapeMrkdwn } from '../blocks/escape.js';
import { section } from '../blocks/message.js';
import { renderApplyOutput } from '../blocks/render-apply-output.js';
import type { RunMessages } from './run-messages.js';

export function followApplies(bus: EventBus, messages: RunMessages): (() => void)[] {
  return [
    bus.on('apply_queued', async ({ run, actor }) => {
      // An automatic apply may start before its alert went out of a digest window.
      await messages.ensurePosted(run);
      await messages.update(run, { kind: 'applying', by: actor });
    }),
    bus.on('applied', async ({ run, durationMs, output, verification }) => {
      await messages.update(run, { kind: 'applied', durationMs, verification });
      messages.reply(run, renderApplyOutput({ ok: true, output, durationMs }));
    }),
    bus.on('apply_failed', async ({ run, durationMs, error, output }) => {
      await messages.update(run, { kind: 'apply_failed' });
      messages.reply(run, renderApplyOutput({ ok: false, output: `${error}\n\n${output}`.trim(), durationMs }));
    }),
    bus.on('plan_expired', async ({ run, stale, credentials }) => {
      await messages.update(run, {
        kind: 'expired',
        ...(stale ? { stale: true } : {}),
        ...(credentials ? { credentials: true } : {}),
      });
    }),
    bus.on('apply_not_started', async ({ run, reason, blocked }) => {
      await messages.update(run, { kind: 'apply_failed' });
      const next = blocked
        ? 'Check the stack, run `/drift unlock` and then `/drift check`.'
        : 'Run `/drift check` for a new plan once the stack is free.';
      messages.reply(run, {
        text: `Apply did not start: ${reason}`,
        blocks: [section(`:x: Apply did not start: ${escapeMrkdwn(reason)}\n${next}`)],
      });
    }),
  ];
}
