/**
 * Whether a run's alert is told, and how it was: decided at once in one transaction (suppressed for a
 * silenced stack, a snoozed drift or a plan whose every change policy ignores; else held for its digest
 * window) and written to the audit log, which is also how a re-plan of a digested alert knows not to alert
 * again, and how a restart finds the alerts a crash caught in their digest window (`alert_held`, nothing
 * after it). The notifier renders and delivers what these decide.
 */
import type { PlanAnalysis } from '../../domain/plan/model.js';
import { everythingIgnored } from '../../domain/policy/ignored.js';
import type { PolicyEvaluation } from '../../domain/policy/model.js';
import type { ProcessOwner, Run } from '../../domain/run/model.js';
import type { Store } from '../../ports/store.js';

export interface AlertDeps {
  store: Store;
  now: () => Date;
  /**
   * This process, recorded on each alert it holds, and whether a holder has ended: true when known gone (a
   * process of this host that exited), false when alive, on another host (only the end of its window speaks
   * for it), or this process (its batcher holds the alert until the window closes).
   */
  holder?: { self: ProcessOwner; gone(owner: ProcessOwner): boolean };
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

/** What the notifier told about a run, in the audit log as `system`; `db`: the store or a transaction. */
export async function recordNotice(
  deps: Pick<AlertDeps, 'store' | 'now'>,
  run: Run,
  action: string,
  detail?: Record<string, unknown>,
  db: Store = deps.store,
): Promise<void> {
  await db.appendAudit({
    at: deps.now(),
    actor: 'system',
    action,
    runId: run.id,
    stack: run.stack,
    ...(detail ? { detail } : {}),
  });
}

/** Whether the run's audit holds one of `actions` (by any process). */
const auditedAs = async (db: Store, runId: string, actions: readonly string[]) =>
  (await db.listAudit({ runId })).some((a) => actions.includes(a.action));

/** Posted or listed in a digest already. */
export const alerted = (db: Store, run: Run) => auditedAs(db, run.id, ALERTED);
const decided = (db: Store, run: Run) => auditedAs(db, run.id, DECIDED);

/** Why the run must not alert, if it must not. */
async function suppressed(deps: AlertDeps, db: Store, run: Run, ignoredAll: boolean): Promise<string | undefined> {
  if (ignoredAll) return 'alert_ignored';
  const silence = await db.getSilence(run.stack, deps.now());
  if (silence) return 'alert_silenced';
  if (run.fingerprint && (await db.isSnoozed(run.stack, run.fingerprint, deps.now()))) return 'alert_snoozed';
  return undefined;
}

/**
 * Whether the run alerts: true when it is held for `channel`'s digest window, false when it was decided
 * already or is suppressed (audited as why). Decided in one transaction: an announcement told twice (a
 * replay at start) alerts once.
 */
export async function holdAlert(
  deps: AlertDeps,
  run: Run,
  found: { analysis: PlanAnalysis; policy?: PolicyEvaluation },
  hold: { channel: () => string; windowMs: number },
): Promise<boolean> {
  return await deps.store.atomically(async (tx) => {
    if (await decided(tx, run)) return false;
    const reason = await suppressed(deps, tx, run, everythingIgnored(found.analysis, found.policy));
    if (reason) {
      await recordNotice(deps, run, reason, undefined, tx);
      return false;
    }
    const channel = hold.channel();
    const until = new Date(deps.now().getTime() + hold.windowMs).toISOString();
    const holder = deps.holder ? { holder: deps.holder.self } : {};
    await recordNotice(deps, run, ALERT_HELD, { channel, until, ...holder }, tx);
    return true;
  });
}

/**
 * The run to post for one held: the newest re-plan of the same changes, if checks superseded it while it
 * waited in its window (their own alerts, held as well, then find it posted): one alert, with live buttons.
 */
export async function newestOfHeld(deps: Pick<AlertDeps, 'store'>, run: Run): Promise<Run> {
  let current = (await deps.store.getRun(run.id)) ?? run;
  for (let i = 0; i < 100 && current.state === 'superseded' && current.supersededBy; i++) {
    const next = await deps.store.getRun(current.supersededBy);
    if (!next || next.fingerprint !== run.fingerprint) break;
    current = next;
  }
  return current;
}

/** A run this one replaced with the same changes, whose alert went out: its message is this run's to take. */
export async function postedPredecessor(deps: Pick<AlertDeps, 'store'>, run: Run): Promise<Run | undefined> {
  const { store } = deps;
  if (await store.hasMessage(run.id)) return undefined;
  const replaced = (await store.listRuns({ stack: run.stack, states: ['superseded'], limit: 20 })).filter(
    (r) => r.supersededBy === run.id && r.fingerprint === run.fingerprint,
  );
  for (const previous of replaced) if (await store.hasMessage(previous.id)) return previous;
  return undefined;
}

/**
 * One digest for `held` (each taken at its newest re-plan), in one transaction: a run posted meanwhile (an
 * automatic apply) or listed by another process's digest is left out; `send` queues the digest of the rest.
 */
export async function digestOnce(
  deps: Pick<AlertDeps, 'store' | 'now'>,
  held: Run[],
  channel: string,
  send: (runs: Run[], tx: Store) => Promise<void>,
): Promise<void> {
  const all = new Map<string, Run>();
  for (const run of held) {
    const latest = await newestOfHeld(deps, run);
    all.set(latest.id, latest);
  }
  await deps.store.atomically(async (tx) => {
    const runs: Run[] = [];
    for (const run of all.values()) if (!(await tx.hasMessage(run.id)) && !(await alerted(tx, run))) runs.push(run);
    if (runs.length === 0) return;
    await send(runs, tx);
    for (const run of runs) await recordNotice(deps, run, 'alert_digested', { channel }, tx);
  });
}

/**
 * A re-plan whose predecessor went out in a digest: its stack is listed there already, so the re-plan is
 * recorded as digested too (once) rather than alerted. False when the predecessor was not digested.
 */
export async function carriedInDigest(
  deps: Pick<AlertDeps, 'store' | 'now'>,
  run: Run,
  previousRunId: string | undefined,
): Promise<boolean> {
  if (!previousRunId || !(await auditedAs(deps.store, previousRunId, ALERTED))) return false;
  if (!(await decided(deps.store, run)))
    await recordNotice(deps, run, 'alert_digested', { carriedFrom: previousRunId });
  return true;
}

/**
 * Runs still undecided whose alert was held and neither posted nor digested, and whose holder is gone
 * or whose window closed a grace ago (a live holder would have posted it). An entry from before `until`
 * was recorded counts as closed.
 */
export async function heldAndLost(deps: AlertDeps): Promise<Run[]> {
  const { store } = deps;
  const holderGone = (recorded: unknown): boolean => {
    const owner = recorded as ProcessOwner | undefined;
    if (!deps.holder || typeof owner?.pid !== 'number' || typeof owner.host !== 'string') return false;
    return deps.holder.gone(owner);
  };
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
