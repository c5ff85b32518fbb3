import type { Run } from '../../domain/run/model.js';
import type { Store } from '../../ports/store.js';

interface OpenAlertDeps {
  store: Store;
  now: () => Date;
}

/** The newest run that replaced this one: a digest lists runs that later checks may have superseded. */
async function latest(deps: Pick<OpenAlertDeps, 'store'>, run: Run): Promise<Run> {
  let current = run;
  for (let i = 0; i < 100 && current.state === 'superseded' && current.supersededBy; i++) {
    const next = await deps.store.getRun(current.supersededBy);
    if (!next) break;
    current = next;
  }
  return current;
}

/**
 * A digest's Open: the newest run that replaced the one listed gets its own interactive message, which
 * `post` queues in the digest's thread, and the audit says who opened it. `open` when the run has a
 * message already; `nowhere` when there is no thread to post into (no `post`).
 */
export async function openAlertFromDigest(
  deps: OpenAlertDeps,
  listed: Run,
  actor: string,
  post: ((run: Run) => Promise<unknown>) | undefined,
): Promise<{ status: 'opened' | 'open' | 'nowhere'; run: Run }> {
  const run = await latest(deps, listed);
  if (await deps.store.hasMessage(run.id)) return { status: 'open', run };
  if (!post) return { status: 'nowhere', run };
  await post(run);
  await deps.store.appendAudit({ at: deps.now(), actor, action: 'alert_opened', runId: run.id, stack: run.stack });
  return { status: 'opened', run };
}
