/**
 * Domain events -> Slack. New drift or a new pending change is alerted (unless the stack is silenced or
 * that drift was rejected and is snoozed), a re-plan of the same changes takes over its predecessor's
 * message, resolved drift and superseded runs update their messages, and a failing plan is reported
 * once per distinct error, and decisions and applies are followed in their run's message. What was alerted how is
 * written to the audit log, which is also how a re-plan of a digested alert knows not to alert again, and
 * how a restart finds the alerts a crash caught in their digest window (`alert_held`, nothing after it).
 */
import { createHash } from 'node:crypto';
import type { Store } from '../../ports/store.js';
import type { DriftgateConfig } from '../../config/schema.js';
import type { Stack } from '../../domain/stack.js';
import type { PlanAnalysis } from '../../domain/plan/model.js';
import { everythingIgnored } from '../../domain/policy/ignored.js';
import type { PolicyEvaluation } from '../../domain/policy/model.js';
import type { ProcessOwner, Run } from '../../domain/run/model.js';
import type { EventBus } from '../../services/event-bus.js';
import type { ServiceLogger } from '../../services/deps.js';
import { renderDigest } from '../blocks/render-digest.js';
import { renderNotConverging } from '../blocks/render-not-converging.js';
import { renderPlanFailed } from '../blocks/render-plan-failed.js';
import { errorMessage } from '../../domain/errors.js';
import { createAlertBatcher } from './alert-batcher.js';
import { followApplies } from './apply-messages.js';
import { followDecisions } from './decision-messages.js';
import { stackKey, type RunMessages } from './run-messages.js';

export interface NotifierDeps {
  config: Pick<DriftgateConfig, 'slack'>;
  store: Store;
  bus: EventBus;
  messages: RunMessages;
  stack(name: string): Stack | undefined;
  now: () => Date;
  logger: ServiceLogger;
  /**
   * This process, recorded on each alert it holds, and whether a holder has ended: true when known gone (a
   * process of this host that exited), false when alive, on another host (only the end of its window speaks
   * for it), or this process (its batcher holds the alert until the window closes).
   */
  holder?: { self: ProcessOwner; gone(owner: ProcessOwner): boolean };
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

const ALERTED = ['alert_posted', 'alert_digested'];
/** Written the moment an alert is decided, before it waits out its digest window: a crash cannot lose it. */
const ALERT_HELD = 'alert_held';
/**
 * How long after its window closed a held alert is taken for lost. The holder posts at the close (its post
 * loads the plan's analysis first); posting twice is impossible either way (the post is a compare-and-set on
 * the run's message), this only keeps a live holder's digest whole.
 */
export const HELD_GRACE_MS = 5_000;
/** Every way an alert is decided: a run with one of these was told already (an announcement replayed at start). */
const DECIDED = [ALERT_HELD, ...ALERTED, 'alert_ignored', 'alert_silenced', 'alert_snoozed'];

export function createNotifier(deps: NotifierDeps): Notifier {
  const { store, messages, logger } = deps;
  const slack = deps.config.slack;
  // `db`: the store, or the transaction a decision is taken in.
  const audit = (run: Run, action: string, detail?: Record<string, unknown>, db: Store = store) =>
    db.appendAudit({
      at: deps.now(),
      actor: 'system',
      action,
      runId: run.id,
      stack: run.stack,
      ...(detail ? { detail } : {}),
    });

  /**
   * The run to post for one held: the newest re-plan of the same changes, if checks superseded it while it
   * waited in its window (their own alerts, held as well, then find it posted): one alert, with live buttons.
   */
  async function newest(run: Run): Promise<Run> {
    let current = (await store.getRun(run.id)) ?? run;
    for (let i = 0; i < 100 && current.state === 'superseded' && current.supersededBy; i++) {
      const next = await store.getRun(current.supersededBy);
      if (!next || next.fingerprint !== run.fingerprint) break;
      current = next;
    }
    return current;
  }

  /** A run this one replaced with the same changes, whose alert went out: its message is this run's to take. */
  async function postedPredecessor(run: Run): Promise<Run | undefined> {
    if (await store.hasMessage(run.id)) return undefined;
    const replaced = (await store.listRuns({ stack: run.stack, states: ['superseded'], limit: 20 })).filter(
      (r) => r.supersededBy === run.id && r.fingerprint === run.fingerprint,
    );
    for (const previous of replaced) if (await store.hasMessage(previous.id)) return previous;
    return undefined;
  }

  /** Whether the run's audit holds one of `actions` (by any process). */
  const auditedAs = async (runId: string, actions: readonly string[], db: Store = store) =>
    (await db.listAudit({ runId })).some((a) => actions.includes(a.action));
  /** Posted or listed in a digest already. */
  const alerted = (run: Run, db?: Store) => auditedAs(run.id, ALERTED, db);

  const batcher = createAlertBatcher<Run>({
    windowMs: slack?.digestWindow ?? 0,
    threshold: slack?.digestThreshold ?? Number.POSITIVE_INFINITY,
    async single(held) {
      const run = await newest(held);
      // Its predecessor's alert was being posted when this re-plan came (its window had just closed): this
      // run takes that message over, as a re-plan does, instead of a second alert of the same drift.
      const posted = await postedPredecessor(run);
      if (posted) {
        await messages.update(run, { kind: 'awaiting' }, { messageOf: posted.id });
        return;
      }
      // Another process's digest may have listed it already: a held predecessor's window closed first, and
      // its digest took the newest re-plan, this run (the soak found it posted twice).
      if (await alerted(run)) return;
      // An automatic apply may have posted it already, while the alert waited in its digest window: post() checks.
      if (await messages.post(run)) await audit(run, 'alert_posted');
    },
    async digest(channel, held) {
      const all = new Map<string, Run>();
      for (const run of held) {
        const latest = await newest(run);
        all.set(latest.id, latest);
      }
      // One transaction: a run posted meanwhile (an automatic apply) is either in the digest or posted.
      await store.atomically(async (tx) => {
        const runs: Run[] = [];
        for (const run of all.values()) if (!(await tx.hasMessage(run.id)) && !(await alerted(run, tx))) runs.push(run);
        if (runs.length === 0) return;
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
        for (const run of runs) await audit(run, 'alert_digested', { channel }, tx);
      });
    },
    onError: (err) => logger.error({ err: errorMessage(err) }, 'slack alert failed'),
  });

  /** Why the run must not alert, if it must not. */
  async function suppressed(db: Store, run: Run, ignoredAll: boolean): Promise<string | undefined> {
    if (ignoredAll) return 'alert_ignored';
    const silence = await db.getSilence(run.stack, deps.now());
    if (silence) return 'alert_silenced';
    if (run.fingerprint && (await db.isSnoozed(run.stack, run.fingerprint, deps.now()))) return 'alert_snoozed';
    return undefined;
  }

  const decided = (run: Run, db?: Store) => auditedAs(run.id, DECIDED, db);

  async function alert(run: Run, found: { analysis: PlanAnalysis; policy?: PolicyEvaluation }): Promise<void> {
    // Decided in one transaction: an announcement told twice (a replay at start) alerts once.
    const channel = await store.atomically(async (tx) => {
      if (await decided(run, tx)) return undefined;
      const reason = await suppressed(tx, run, everythingIgnored(found.analysis, found.policy));
      if (reason) {
        await audit(run, reason, undefined, tx);
        return undefined;
      }
      const held = messages.channelOf(run.stack);
      const until = new Date(deps.now().getTime() + (slack?.digestWindow ?? 0)).toISOString();
      await audit(run, ALERT_HELD, { channel: held, until, ...(deps.holder ? { holder: deps.holder.self } : {}) }, tx);
      return held;
    });
    if (channel) batcher.add(channel, run);
  }

  /**
   * Runs still undecided whose alert was held and neither posted nor digested, and whose holder is gone
   * or whose window closed a grace ago (a live holder would have posted it). An entry from before `until`
   * was recorded counts as closed.
   */
  const holderGone = (recorded: unknown): boolean => {
    const owner = recorded as ProcessOwner | undefined;
    if (!deps.holder || typeof owner?.pid !== 'number' || typeof owner.host !== 'string') return false;
    return deps.holder.gone(owner);
  };

  async function heldAndLost(): Promise<Run[]> {
    const held: Run[] = [];
    const closedBefore = deps.now().getTime() - HELD_GRACE_MS;
    for (const run of await store.listRuns({ states: ['drifted', 'pending_approval'] })) {
      // Most open runs were posted long ago: one indexed read rules them out before their audit is read
      // (this runs every few seconds on the leader).
      if (await store.hasMessage(run.id)) continue;
      const audit = await store.listAudit({ runId: run.id });
      const hold = audit.find((a) => a.action === ALERT_HELD);
      const until = typeof hold?.detail?.until === 'string' ? Date.parse(hold.detail.until) : 0;
      if (
        hold &&
        (until <= closedBefore || holderGone(hold.detail?.holder)) &&
        !audit.some((a) => ALERTED.includes(a.action))
      )
        held.push(run);
    }
    return held;
  }

  /** Names a perpetual diff once per run: in the thread of its alert (broadcast), or in the channel. */
  async function notConvergingOnce(run: Run, checks: number, hasThread: boolean): Promise<void> {
    if ((await store.listAudit({ runId: run.id })).some((a) => a.action === 'not_converging') || !run.counts) return;
    const message = renderNotConverging({ stack: run.stack, counts: run.counts, checks });
    if (hasThread || (await store.hasMessage(run.id))) await messages.reply(run, message, { broadcast: true });
    else
      await store.enqueue({
        key: stackKey(run.stack),
        method: 'chat.postMessage',
        payload: { channel: messages.channelOf(run.stack), ...message },
      });
    await audit(run, 'not_converging', { checks });
  }

  /** Messages of the runs this run replaced say so (all but `except`, whose message the run takes over). */
  async function markSuperseded(run: Run, except?: string): Promise<void> {
    const replaced = (await store.listRuns({ stack: run.stack, states: ['superseded'], limit: 20 })).filter(
      (r) => r.supersededBy === run.id && r.id !== except,
    );
    for (const old of replaced) await messages.update(old, { kind: 'superseded', by: run.id });
  }

  const unsubscribe = [
    ...followDecisions(deps.bus, messages),
    ...followApplies(deps.bus, messages),
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
      if (previousRunId && (await auditedAs(previousRunId, ALERTED))) {
        if (!(await decided(run))) await audit(run, 'alert_digested', { carriedFrom: previousRunId });
        return;
      }
      await alert(run, found);
    }),
    deps.bus.on('drift_resolved', async ({ run, previousRunId }) => {
      await markSuperseded(run, previousRunId);
      const previous = await store.getRun(previousRunId);
      // An apply through driftgate resolved it: the apply owns that message and says "applied, verified".
      if (
        !previous ||
        previous.state === 'applied' ||
        previous.state === 'applying' ||
        previous.state === 'apply_failed'
      )
        return;
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
      // A stack that fails the same way every hour is reported once, until it fails differently or recovers.
      const signature = createHash('sha256').update(`${error}\n${stderrTail}`).digest('hex').slice(0, 16);
      const before = (await store.listRuns({ stack: run.stack, limit: 2 })).find((r) => r.id !== run.id);
      const repeated =
        before?.state === 'errored' &&
        (await store.listAudit({ runId: before.id })).some((a) => a.detail?.signature === signature);
      if (repeated) {
        await audit(run, 'plan_failure_repeated', { signature });
        return;
      }
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
      await audit(run, 'plan_failure_posted', { signature });
    }),
  ];

  return {
    flush: () => batcher.flush(),
    async resume() {
      const held = await heldAndLost();
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
