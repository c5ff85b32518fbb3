/**
 * What else a check's events tell about runs, decided here and rendered by the notifier: which messages a
 * new run supersedes, whether resolved drift is for its old message to say, whether a perpetual diff is
 * named yet, and whether a failing plan is news (a stack that fails the same way every hour is reported
 * once, until it fails differently or recovers).
 */
import { createHash } from 'node:crypto';
import type { Run } from '../../domain/run/model.js';
import type { Store } from '../../ports/store.js';
import { recordNotice } from './alerts.js';

interface NoticeDeps {
  store: Store;
  now: () => Date;
}

/** The runs this run replaced (all but `except`, whose message the run takes over): their messages say so. */
export async function supersededBy(deps: Pick<NoticeDeps, 'store'>, run: Run, except?: string): Promise<Run[]> {
  return (await deps.store.listRuns({ stack: run.stack, states: ['superseded'], limit: 20 })).filter(
    (r) => r.supersededBy === run.id && r.id !== except,
  );
}

/**
 * The run whose message says its drift is resolved now; undefined when an apply through driftgate resolved
 * it: the apply owns that message and says "applied, verified".
 */
export async function resolvedMessageRun(
  deps: Pick<NoticeDeps, 'store'>,
  previousRunId: string,
): Promise<Run | undefined> {
  const previous = await deps.store.getRun(previousRunId);
  if (!previous || previous.state === 'applied' || previous.state === 'applying' || previous.state === 'apply_failed')
    return undefined;
  return previous;
}

/** Whether the run's perpetual diff was named already: it is named once per run. */
export async function notConvergingNamed(deps: Pick<NoticeDeps, 'store'>, run: Run): Promise<boolean> {
  return (await deps.store.listAudit({ runId: run.id })).some((a) => a.action === 'not_converging');
}

/**
 * Whether a failed plan is to be reported: its signature when it is, undefined (audited as
 * `plan_failure_repeated`) when the stack's previous run failed the same way and was reported.
 */
export async function planFailureToReport(
  deps: NoticeDeps,
  run: Run,
  failure: { error: string; stderrTail: string },
): Promise<string | undefined> {
  const signature = createHash('sha256').update(`${failure.error}\n${failure.stderrTail}`).digest('hex').slice(0, 16);
  const before = (await deps.store.listRuns({ stack: run.stack, limit: 2 })).find((r) => r.id !== run.id);
  const repeated =
    before?.state === 'errored' &&
    (await deps.store.listAudit({ runId: before.id })).some((a) => a.detail?.signature === signature);
  if (!repeated) return signature;
  await recordNotice(deps, run, 'plan_failure_repeated', { signature });
  return undefined;
}
