/**
 * Apply events -> the run's message and thread: "Applying…", then "Applied in 34 s, verified: no drift"
 * or "Apply failed: see thread" with terraform's masked output in the thread, "Expired" when the plan can
 * no longer be applied, the reason plus a next step when the apply could not start, and "Apply
 * interrupted" with who started it when driftgate stopped part way (found at the next start).
 */
import type { EventBus } from '../../services/runtime/event-bus.js';
import { escapeMrkdwn, userRef } from '../blocks/escape.js';
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
      await messages.reply(run, renderApplyOutput({ ok: true, output, durationMs }));
    }),
    bus.on('apply_failed', async ({ run, durationMs, error, output }) => {
      await messages.update(run, { kind: 'apply_failed' });
      await messages.reply(run, renderApplyOutput({ ok: false, output: `${error}\n\n${output}`.trim(), durationMs }));
    }),
    bus.on('apply_interrupted', async ({ run, startedBy }) => {
      await messages.ensurePosted(run);
      await messages.update(run, { kind: 'interrupted', stack: run.stack });
      const text = `The apply started by ${userRef(startedBy)} was interrupted: driftgate stopped before it finished.`;
      await messages.reply(run, {
        text,
        blocks: [
          section(
            `:warning: ${text} Check the stack's real infrastructure and state, then run \`/drift unlock ${escapeMrkdwn(run.stack)}\` and \`/drift check ${escapeMrkdwn(run.stack)}\`.`,
          ),
        ],
      });
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
      await messages.reply(run, {
        text: `Apply did not start: ${reason}`,
        blocks: [section(`:x: Apply did not start: ${escapeMrkdwn(reason)}\n${next}`)],
      });
    }),
  ];
}
