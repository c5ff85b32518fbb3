import type { DomainEvent } from '../domain/events.js';
import { relayedEvent, type RelayedEvent } from '../domain/relayed-event.js';
import { createEventBus, type EventBus } from './event-bus.js';

/**
 * A worker's bus: what its runs publish goes to the control plane (which holds Slack, GitHub and on-call),
 * then to the worker's own handlers (its log). A send that fails throws, unlike a failing handler: a check
 * then leaves its outcome's announcement recorded, for the control plane to announce later.
 */
export function relayBus(
  relay: (event: RelayedEvent) => Promise<void>,
  onHandlerError: (err: unknown, event: DomainEvent) => void,
): EventBus {
  const local = createEventBus(onHandlerError);
  return {
    on: local.on,
    onAny: local.onAny,
    async publish(event) {
      await relay(relayedEvent(event));
      await local.publish(event);
    },
  };
}
