/**
 * Decisions -> the run's message: an approval that leaves more to come shows the new count, a rejection
 * says who rejected and why. The last approval needs nothing of its own: the apply it starts says "Applying…".
 */
import type { EventBus } from '../../services/runtime/event-bus.js';
import type { RunMessages } from './run-messages.js';

export function followDecisions(bus: EventBus, messages: RunMessages): (() => void)[] {
  return [
    bus.on('approval_recorded', async ({ run }) => {
      await messages.update(run, { kind: 'awaiting' });
    }),
    bus.on('rejected', async ({ run, actor, reason }) => {
      await messages.update(run, { kind: 'rejected', by: actor, ...(reason ? { reason } : {}) });
    }),
  ];
}
