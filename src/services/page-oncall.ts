/**
 * Domain events -> PagerDuty, through the outbox: new drift on a stack with `pagerduty.routing` pages
 * (one incident per stack, see pageDedupKey), and the drift going away resolves that incident; an apply
 * driftgate stopped in the middle of (found at its next start) pages on its own incident. A stack no
 * rule routes never pages. Each page enqueued is written to the audit log with the variable it was routed
 * by, so a resolve reaches the service its trigger went to even after the routing changed.
 */
import type { PagingRules } from '../domain/oncall/model.js';
import {
  buildInterruptedApplyEvent,
  buildResolveEvent,
  buildTriggerEvent,
  type PageEventBody,
} from '../domain/oncall/page-event.js';
import { pageRouteFor } from '../domain/oncall/route.js';
import { everythingIgnored } from '../domain/policy/ignored.js';
import type { SlackStore } from '../ports/slack-store.js';
import type { RunStore } from '../ports/store.js';
import type { EventBus } from './event-bus.js';
import type { ServiceLogger, StackLookup } from './deps.js';
import { pageItem } from '../domain/oncall/page-item.js';

export interface PagerDeps {
  config: { pagerduty?: PagingRules };
  bus: EventBus;
  store: Pick<SlackStore, 'enqueue' | 'getSilence'> & Pick<RunStore, 'getStack' | 'appendAudit' | 'listAudit'>;
  stack: StackLookup;
  now: () => Date;
  logger: ServiceLogger;
}

export interface Pager {
  stop(): void;
}

export const PAGE_TRIGGERED = 'page_triggered';
export const PAGE_RESOLVED = 'page_resolved';

export function createPager(deps: PagerDeps): Pager {
  const { store, logger } = deps;

  function enqueue(stack: string, runId: string, routingKeyEnv: string, event: PageEventBody): void {
    // A trigger names its run, for the link to its Slack message added at delivery.
    const run = event.event_action === 'trigger' ? { run: { id: runId, stack } } : {};
    store.enqueue(pageItem(stack, { routingKeyEnv, event, ...run }));
    const action = event.event_action === 'trigger' ? PAGE_TRIGGERED : PAGE_RESOLVED;
    store.appendAudit({
      at: deps.now(),
      actor: 'system',
      action,
      runId,
      stack,
      detail: { dedupKey: event.dedup_key, routingKeyEnv },
    });
    logger.info({ stack, runId, dedupKey: event.dedup_key, action: event.event_action }, 'page enqueued');
  }

  /** The variable the stack's open incident was triggered with, if the audit still shows one. */
  function triggeredWith(stack: string): string | undefined {
    const last = store
      .listAudit({ stack, limit: 200 })
      .findLast((a) => a.action === PAGE_TRIGGERED || a.action === PAGE_RESOLVED);
    const env = last?.action === PAGE_TRIGGERED ? last.detail?.routingKeyEnv : undefined;
    return typeof env === 'string' ? env : undefined;
  }

  /** Whether the run already paged, or decided not to (an announcement replayed at start is told once). */
  const decided = (runId: string, actions: string[]) =>
    store.listAudit({ runId }).some((a) => actions.includes(a.action));

  const unsubscribe = [
    deps.bus.on('drift_detected', ({ stack: name, run, analysis, policy }) => {
      const stack = deps.stack(name);
      const route = stack && pageRouteFor(deps.config.pagerduty, stack);
      if (!stack || !route || decided(run.id, [PAGE_TRIGGERED, 'page_held'])) return;
      // Silenced (a migration, an incident being handled) or owned by another system: nobody is woken.
      const quiet = everythingIgnored(analysis, policy)
        ? 'ignored by policy'
        : store.getSilence(name, deps.now())
          ? 'silenced'
          : undefined;
      if (quiet) {
        store.appendAudit({
          at: deps.now(),
          actor: 'system',
          action: 'page_held',
          runId: run.id,
          stack: name,
          detail: { reason: quiet },
        });
        return;
      }
      const firstSeenAt = store.getStack(name)?.openDrift?.firstSeenAt;
      const event = buildTriggerEvent({
        stack,
        severity: route.severity,
        run,
        analysis,
        ...(firstSeenAt ? { firstSeenAt } : {}),
      });
      enqueue(name, run.id, route.routingKeyEnv, event);
    }),
    // Not held by a silence: the silence is about drift, and this is driftgate's own apply left half done.
    deps.bus.on('apply_interrupted', ({ stack: name, run, startedBy }) => {
      const stack = deps.stack(name);
      const route = stack && pageRouteFor(deps.config.pagerduty, stack);
      if (!stack || !route) return;
      enqueue(
        name,
        run.id,
        route.routingKeyEnv,
        buildInterruptedApplyEvent({ stack, severity: route.severity, run, startedBy }),
      );
    }),
    deps.bus.on('drift_resolved', ({ stack: name, run }) => {
      const stack = deps.stack(name);
      const routed = stack && pageRouteFor(deps.config.pagerduty, stack)?.routingKeyEnv;
      const routingKeyEnv = triggeredWith(name) ?? routed;
      if (!routingKeyEnv || decided(run.id, [PAGE_RESOLVED])) return;
      enqueue(name, run.id, routingKeyEnv, buildResolveEvent({ name }));
    }),
  ];

  return {
    stop: () => {
      for (const off of unsubscribe) off();
    },
  };
}
