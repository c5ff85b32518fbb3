import type { DomainEvent, DomainEventType, EventOf } from '../../domain/events.js';

export type EventHandler<T extends DomainEventType> = (event: EventOf<T>) => void | Promise<void>;

export interface EventBus {
  on<T extends DomainEventType>(type: T, handler: EventHandler<T>): () => void;
  onAny(handler: (event: DomainEvent) => void | Promise<void>): () => void;
  /** Delivers to every handler; a failing handler is reported, never breaks the publisher or the others. */
  publish(event: DomainEvent): Promise<void>;
}

export function createEventBus(onHandlerError: (err: unknown, event: DomainEvent) => void): EventBus {
  const handlers = new Set<{ type?: DomainEventType; fn: (event: DomainEvent) => void | Promise<void> }>();
  const add = (entry: { type?: DomainEventType; fn: (event: DomainEvent) => void | Promise<void> }) => {
    handlers.add(entry);
    return () => void handlers.delete(entry);
  };
  return {
    on: (type, handler) => add({ type, fn: handler as (event: DomainEvent) => void | Promise<void> }),
    onAny: (fn) => add({ fn }),
    async publish(event) {
      const matching = [...handlers].filter((h) => !h.type || h.type === event.type);
      await Promise.all(
        matching.map(async (h) => {
          try {
            await h.fn(event);
          } catch (err) {
            onHandlerError(err, event);
          }
        }),
      );
    },
  };
}
