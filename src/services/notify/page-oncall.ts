/**
 * Domain events -> PagerDuty, through the outbox: new drift on a stack with `pagerduty.routing` pages
 * (one incident per stack, see pageDedupKey), and the drift going away resolves that incident; an apply
 * driftgate stopped in the middle of pages on its own incident, which a person's unblocking of the stack
 * resolves (unlockStack). A silence holds both. A stack no rule routes never pages. Each page enqueued is
 * written to the audit log with the variable it was routed by, so a resolve reaches the service its
 * trigger went to even after the routing changed.
 */
import type { PagingRules } from '../../domain/oncall/model.js';
import {
  buildInterruptedApplyEvent,
  buildResolveEvent,
  buildTriggerEvent,
  interruptedApplyDedupKey,
  isInterruptedApplyKey,
  type PageEventBody,
} from '../../domain/oncall/page-event.js';
import { pageRouteFor } from '../../domain/oncall/route.js';
import { everythingIgnored } from '../../domain/policy/ignored.js';
import type { SlackStore } from '../../ports/slack-store.js';
import type { RunStore } from '../../ports/store.js';
import type { EventBus } from '../runtime/event-bus.js';
import type { StackLookup } from '../runtime/deps.js';
import { pageItem } from '../../domain/oncall/page-item.js';
import { errorMessage } from '../../domain/errors.js';
import type { ArtifactStore } from '../../ports/artifacts.js';
import { loadAttribution } from '../check/stored-attribution.js';
import type { Logger } from '../../ports/logger.js';

export interface PagerDeps {
  config: { pagerduty?: PagingRules };
  bus: EventBus;
  store: PagerStore & Pick<RunStore, 'atomically' | 'listArtifacts'>;
  stack: StackLookup;
  now: () => Date;
  logger: Logger;
  /** Where a run's attribution is read from (who changed the drift); absent: pages do not name anyone. */
  artifacts?: ArtifactStore;
}

/** What the pager reads and writes, through the store or a transaction of it. */
type PagerStore = Pick<SlackStore, 'enqueue' | 'getSilence'> & Pick<RunStore, 'getStack' | 'appendAudit' | 'listAudit'>;

export interface Pager {
  stop(): void;
}

export const PAGE_TRIGGERED = 'page_triggered';
export const PAGE_RESOLVED = 'page_resolved';

export function createPager(deps: PagerDeps): Pager {
  const { store, logger } = deps;

  /** Newest first; reading them failing costs the page its names, not the page. */
  async function changesOf(runId: string) {
    if (!deps.artifacts) return [];
    const attribution = await loadAttribution({ artifacts: deps.artifacts, store: deps.store }, runId).catch(
      (err: unknown) => {
        logger.warn({ runId, err: errorMessage(err) }, 'attribution unreadable: the page names no one');
        return undefined;
      },
    );
    if (attribution?.status !== 'found') return [];
    return [...attribution.changes].sort((a, b) => b.at.getTime() - a.at.getTime());
  }

  async function enqueue(
    db: PagerStore,
    stack: string,
    runId: string,
    routingKeyEnv: string,
    event: PageEventBody,
  ): Promise<void> {
    // A trigger names its run, for the link to its Slack message added at delivery.
    const run = event.event_action === 'trigger' ? { run: { id: runId, stack } } : {};
    await db.enqueue(pageItem(stack, { routingKeyEnv, event, ...run }));
    const action = event.event_action === 'trigger' ? PAGE_TRIGGERED : PAGE_RESOLVED;
    await db.appendAudit({
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
  async function triggeredWith(db: PagerStore, stack: string): Promise<string | undefined> {
    // The drift's incident, not an interrupted apply's (an incident of its own).
    const last = (await db.listAudit({ stack, limit: 200 })).findLast(
      (a) => (a.action === PAGE_TRIGGERED || a.action === PAGE_RESOLVED) && !isInterruptedApplyKey(a.detail?.dedupKey),
    );
    const env = last?.action === PAGE_TRIGGERED ? last.detail?.routingKeyEnv : undefined;
    return typeof env === 'string' ? env : undefined;
  }

  /** Nobody is paged for the run, and the audit says why (`detail.reason`). */
  const held = (db: PagerStore, stack: string, runId: string, detail: Record<string, unknown>) =>
    db.appendAudit({ at: deps.now(), actor: 'system', action: 'page_held', runId, stack, detail });

  /** Whether the run already paged, or decided not to (an announcement replayed at start is told once). */
  const decided = async (db: PagerStore, runId: string, actions: string[]) =>
    (await db.listAudit({ runId })).some((a) => actions.includes(a.action));

  // Each handler decides and enqueues in one transaction: of two deliveries of the same event (a replay at
  // start), one pages and the other finds it decided.

  const unsubscribe = [
    deps.bus.on('drift_detected', async ({ stack: name, run, analysis, policy }) => {
      const stack = deps.stack(name);
      const route = stack && pageRouteFor(deps.config.pagerduty, stack);
      if (!stack || !route) return;
      const changes = await changesOf(run.id);
      await store.atomically(async (tx) => {
        if (await decided(tx, run.id, [PAGE_TRIGGERED, 'page_held'])) return;
        // Silenced (a migration, an incident being handled) or owned by another system: nobody is woken.
        const quiet = everythingIgnored(analysis, policy)
          ? 'ignored by policy'
          : (await tx.getSilence(name, deps.now()))
            ? 'silenced'
            : undefined;
        if (quiet) {
          await held(tx, name, run.id, { reason: quiet });
          return;
        }
        const firstSeenAt = (await tx.getStack(name))?.openDrift?.firstSeenAt;
        const event = buildTriggerEvent({
          stack,
          severity: route.severity,
          run,
          analysis,
          ...(firstSeenAt ? { firstSeenAt } : {}),
          ...(changes.length ? { changes } : {}),
        });
        await enqueue(tx, name, run.id, route.routingKeyEnv, event);
      });
    }),
    // Held by a silence as drift is: whoever silenced the stack (a migration, an incident being handled) is
    // at work on it. Its incident is resolved when a person unblocks the stack (unlockStack).
    deps.bus.on('apply_interrupted', async ({ stack: name, run, startedBy }) => {
      const stack = deps.stack(name);
      const route = stack && pageRouteFor(deps.config.pagerduty, stack);
      if (!stack || !route) return;
      await store.atomically(async (tx) => {
        if (await tx.getSilence(name, deps.now())) {
          await held(tx, name, run.id, { reason: 'silenced', dedupKey: interruptedApplyDedupKey(run.id) });
          return;
        }
        await enqueue(
          tx,
          name,
          run.id,
          route.routingKeyEnv,
          buildInterruptedApplyEvent({ stack, severity: route.severity, run, startedBy }),
        );
      });
    }),
    deps.bus.on('drift_resolved', async ({ stack: name, run }) => {
      const stack = deps.stack(name);
      const routed = stack && pageRouteFor(deps.config.pagerduty, stack)?.routingKeyEnv;
      await store.atomically(async (tx) => {
        const routingKeyEnv = (await triggeredWith(tx, name)) ?? routed;
        if (!routingKeyEnv || (await decided(tx, run.id, [PAGE_RESOLVED]))) return;
        await enqueue(tx, name, run.id, routingKeyEnv, buildResolveEvent({ name }));
      });
    }),
  ];

  return {
    stop: () => {
      for (const off of unsubscribe) off();
    },
  };
}
