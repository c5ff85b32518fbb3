import type { Run } from '../../domain/run/model.js';
import { approvedRunsLeftOver } from './apply-approved-run.js';
import { interruptHandedApplies } from './apply-handoff.js';
import type { ServiceDeps } from '../runtime/deps.js';
import type { Jobs } from '../runtime/jobs.js';
import { replayAnnouncements } from '../notify/replay-announcements.js';
import { reportInterruptedApplies } from './report-interrupted-applies.js';

/**
 * What a process that died left behind, recovered by the leader: at its start, or when a standby takes
 * the lead. Runs left planning or applying end interrupted (an interrupted apply blocks its stack), and
 * each is told where people look once every listener is up (`tellRecovered`).
 */
export interface Recovered {
  interrupted: Run[];
  /** Runs whose `applying` was lost (a power cut) but whose apply was handed to terraform. */
  handed: Run[];
}

/**
 * `atStart: false` is a process taking the lead again later (lost while the store was out of reach): its
 * own runs are live, and only other processes' are recovered.
 */
export async function recoverLeftRuns(
  deps: Pick<ServiceDeps, 'store' | 'workDir' | 'logger'>,
  atStart: boolean,
): Promise<Recovered> {
  const { store, logger } = deps;
  const interrupted = await store.recoverInterrupted(atStart ? {} : { ownRunsLive: true });
  for (const run of interrupted)
    logger.warn({ runId: run.id, stack: run.stack, error: run.error }, 'run interrupted by an earlier stop');
  const handed = await interruptHandedApplies(deps);
  for (const run of handed)
    logger.warn({ runId: run.id, stack: run.stack }, 'apply was handed to terraform before an earlier stop');
  return { interrupted, handed };
}

/**
 * Told where people look (the run's message, its thread, the audit log, on-call), the outcomes an earlier
 * process recorded and died before telling, and approvals completed before a stop whose apply had not
 * started: applied now, as their last approver.
 */
export async function tellRecovered(
  deps: Pick<ServiceDeps, 'store' | 'artifacts' | 'bus' | 'logger' | 'now'>,
  jobs: Pick<Jobs, 'run'>,
  apply: (run: Run, actor: string) => Promise<unknown>,
  { interrupted, handed }: Recovered,
): Promise<void> {
  jobs.run('report-interrupted-applies', () => reportInterruptedApplies(deps, interrupted, handed));
  // After the held alerts resume: what was recorded but never said.
  jobs.run('replay-announcements', () => replayAnnouncements(deps));
  for (const { run, actor } of await approvedRunsLeftOver(deps.store)) {
    deps.logger.warn(
      { runId: run.id, stack: run.stack },
      'approved run was not applied before the last stop; applying it now',
    );
    jobs.run('apply-after-restart', () => apply(run, actor));
  }
}

/** How old another process's run in flight must be before the sweep takes its process for dead. */
export const OTHERS_RUN_GRACE_MS = 30_000;

/**
 * A standby that dies mid-check or mid-apply while the leader keeps the lead leaves its run in flight
 * with nobody to recover it until the next start: the leader sweeps for such runs as it goes.
 */
export async function sweepRunsOfDeadReplicas(deps: Pick<ServiceDeps, 'store' | 'bus' | 'now' | 'logger'>) {
  const interrupted = await deps.store.recoverInterrupted({ othersOlderThanMs: OTHERS_RUN_GRACE_MS });
  for (const run of interrupted)
    deps.logger.warn({ runId: run.id, stack: run.stack, error: run.error }, 'run interrupted: its replica died');
  if (interrupted.length) await reportInterruptedApplies(deps, interrupted, []);
}
