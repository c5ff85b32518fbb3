/**
 * Domain events -> Slack. New drift or a new pending change is alerted (one by one, or as a digest when
 * many come within a window), a re-plan of the same changes takes over its predecessor's message, resolved
 * drift and superseded runs update their messages, a failing plan is reported, and decisions, applies
 * and remediation PRs are followed in their run's message. Whether to tell (silences, snoozes, de-duplication) and the audit of
 * what was told are decided in services/notify; this renders and delivers.
 */
import type { Store } from '../../ports/store.js';
import type { DriftgateConfig } from '../../config/schema.js';
import type { Stack } from '../../domain/stack.js';
import type { PlanAnalysis } from '../../domain/plan/model.js';
import type { PolicyEvaluation } from '../../domain/policy/model.js';
import type { Run } from '../../domain/run/model.js';
import type { EventBus } from '../../services/runtime/event-bus.js';
import {
  type AlertDeps,
  alerted,
  carriedInDigest,
  digestOnce,
  heldAndLost,
  holdAlert,
  newestOfHeld,
  postedPredecessor,
  recordNotice,
} from '../../services/notify/alerts.js';
import {
  notConvergingNamed,
  planFailureToReport,
  resolvedMessageRun,
  supersededBy,
} from '../../services/notify/run-notices.js';
import { renderDigest } from '../blocks/render-digest.js';
import { renderNotConverging } from '../blocks/render-not-converging.js';
import { renderPlanFailed } from '../blocks/render-plan-failed.js';
import { errorMessage } from '../../domain/errors.js';
import { createAlertBatcher } from './alert-batcher.js';
import { followApplies } from './apply-messages.js';
import { followDecisions } from './decision-messages.js';
import { followRemediations } from './remediation-messages.js';
import { stackKey, type RunMessages } from './run-messages.js';
import type { Logger } from '../../ports/logger.js';

export interface NotifierDeps extends Pick<AlertDeps, 'holder'> {
  config: Pick<DriftgateConfig, 'slack'>;
  store: Store;
  bus: EventBus;
  messages: RunMessages;
  stack(name: string): Stack | undefined;
  now: () => Date;
  logger: Logger;
}

export interface Notifier {
  /** Posts alerts still held in a digest window. */
  flush(): Promise<void>;
  /**
   * Posts the alerts some process decided on (`alert_held`) but never sent, because it died inside their
   * digest window: those whose window closed more than `HELD_GRACE_MS` ago (a live holder posts at the
   * close). Run at start and by the leader every few seconds, so the alert a dead replica held goes out
   * from whichever replica leads; a storm of them still makes one digest.
   */
  resume(): Promise<void>;
  stop(): void;
}

export function createNotifier(deps: NotifierDeps): Notifier {
  const { store, messages, logger } = deps;
  const slack = deps.config.slack;

  const batcher = createAlertBatcher<Run>({
    windowMs: slack?.digestWindow ?? 0,
    threshold: slack?.digestThreshold ?? Number.POSITIVE_INFINITY,
    async single(held) {
      const run = await newestOfHeld(deps, held);
      // Its predecessor's alert was being posted when this re-plan came (its window had just closed): this
      // run takes that message over, as a re-plan does, instead of a second alert of the same drift.
      const posted = await postedPredecessor(deps, run);
      if (posted) {
        await messages.update(run, { kind: 'awaiting' }, { messageOf: posted.id });
        return;
      }
      // Another process's digest may have listed it already: a held predecessor's window closed first, and
      // its digest took the newest re-plan, this run (the soak found it posted twice). Asked in the post's
      // transaction, as the digest asks whether it was posted in its own: of the two, one tells it.
      // An automatic apply may have posted it already, while the alert waited in its digest window: post() checks.
      if (await messages.post(run, { unless: (tx) => alerted(tx, run) })) await recordNotice(deps, run, 'alert_posted');
    },
    async digest(channel, held) {
      await digestOnce(deps, held, channel, async (runs, tx) => {
        const entries = runs.map((run) => ({
          stack: run.stack,
          environment: deps.stack(run.stack)?.environment,
          run,
          counts: run.counts!,
        }));
        await tx.enqueue({
          key: `channel:${channel}`,
          method: 'chat.postMessage',
          payload: { channel, ...renderDigest({ entries }) },
        });
      });
    },
    onError: (err) => logger.error({ err: errorMessage(err) }, 'slack alert failed'),
  });

  async function alert(run: Run, found: { analysis: PlanAnalysis; policy?: PolicyEvaluation }): Promise<void> {
    const channel = () => messages.channelOf(run.stack);
    if (await holdAlert(deps, run, found, { channel, windowMs: slack?.digestWindow ?? 0 })) batcher.add(channel(), run);
  }

  /** Names a perpetual diff once per run: in the thread of its alert (broadcast), or in the channel. */
  async function notConvergingOnce(run: Run, checks: number, hasThread: boolean): Promise<void> {
    if ((await notConvergingNamed(deps, run)) || !run.counts) return;
    const message = renderNotConverging({ stack: run.stack, counts: run.counts, checks });
    if (hasThread || (await store.hasMessage(run.id))) await messages.reply(run, message, { broadcast: true });
    else
      await store.enqueue({
        key: stackKey(run.stack),
        method: 'chat.postMessage',
        payload: { channel: messages.channelOf(run.stack), ...message },
      });
    await recordNotice(deps, run, 'not_converging', { checks });
  }

  /** Messages of the runs this run replaced say so (all but `except`, whose message the run takes over). */
  async function markSuperseded(run: Run, except?: string): Promise<void> {
    for (const old of await supersededBy(deps, run, except))
      await messages.update(old, { kind: 'superseded', by: run.id });
  }

  const unsubscribe = [
    ...followDecisions(deps.bus, messages),
    ...followApplies(deps.bus, messages),
    ...followRemediations(deps.bus, messages),
    deps.bus.on('drift_detected', async ({ run, ...found }) => {
      await markSuperseded(run);
      await alert(run, found);
    }),
    deps.bus.on('plan_pending_approval', async ({ run, ...found }) => {
      await markSuperseded(run);
      await alert(run, found);
    }),
    deps.bus.on('plan_refreshed', async ({ run, previousRunId, notConverging, ...found }) => {
      await markSuperseded(run, previousRunId);
      const updated =
        previousRunId !== undefined && (await messages.update(run, { kind: 'awaiting' }, { messageOf: previousRunId }));
      // After the update, which makes the predecessor's message this run's: the reply goes to its thread.
      if (notConverging) await notConvergingOnce(run, notConverging, updated);
      if (updated) return;
      // The predecessor went out in a digest: its stack is listed there already.
      if (await carriedInDigest(deps, run, previousRunId)) return;
      await alert(run, found);
    }),
    deps.bus.on('drift_resolved', async ({ run, previousRunId }) => {
      await markSuperseded(run, previousRunId);
      const previous = await resolvedMessageRun(deps, previousRunId);
      if (!previous) return;
      await messages.update(previous, {
        kind: 'drift_resolved',
        ...(previous.state === 'interrupted' ? { afterInterrupted: true } : {}),
      });
    }),
    deps.bus.on('no_changes', async ({ run }) => {
      await markSuperseded(run);
    }),
    deps.bus.on('plan_failed', async ({ run, error, stderrTail }) => {
      const stack = deps.stack(run.stack);
      if (!stack || !slack) return;
      const signature = await planFailureToReport(deps, run, { error, stderrTail });
      if (!signature) return;
      const message = renderPlanFailed({
        stack: { name: stack.name, environment: stack.environment, mode: stack.mode },
        run,
        error,
        stderrTail,
      });
      await store.enqueue({
        key: stackKey(run.stack),
        method: 'chat.postMessage',
        payload: { channel: messages.channelOf(run.stack), ...message },
      });
      await recordNotice(deps, run, 'plan_failure_posted', { signature });
    }),
  ];

  return {
    flush: () => batcher.flush(),
    async resume() {
      const held = await heldAndLost(deps);
      if (held.length === 0) return;
      logger.warn(
        { runs: held.map((r) => r.id) },
        'alerts held by a process that stopped were not sent; sending them now',
      );
      for (const run of held) batcher.add(messages.channelOf(run.stack), run);
      await batcher.flush();
    },
    stop: () => {
      for (const off of unsubscribe) off();
    },
  };
}
