import type { Run } from '../domain/run/model.js';
import type { Stack } from '../domain/stack.js';
import type { PoolJob, TakenJob } from '../ports/job-queue.js';
import type { GitHubClient } from '../ports/github.js';
import { settleApply } from './apply-approved-run.js';
import { applyRunFromSource } from './apply-run-from-source.js';
import type { ApplyOutcome } from './apply-run.js';
import { checkStackFromSource } from './check-stack-from-source.js';
import type { ServiceDeps, StackLookup } from './deps.js';
import type { ExpireDeps } from './expire-plan.js';
import { DriftgateError, failureReason } from '../domain/errors.js';
import { storeCodified } from './codify-answer.js';
import { waitForStackLock } from './stack-lock.js';
import { type Codified, codifyDrift, type RemediationCodeChecks } from './codify-drift.js';
import type { SourceDeps } from './resolve-stack-at-commit.js';

export interface PoolJobDeps extends ServiceDeps, Partial<Pick<SourceDeps, 'git'>>, ExpireDeps {
  /** The pool this worker serves. */
  pool: string;
  stack: StackLookup;
  github?: GitHubClient;
  /** terraform's checks of rewritten code (codify jobs). */
  checks?: RemediationCodeChecks;
  /** How often a job waiting for its stack's lock looks again; default 1 s. */
  lockPollMs?: number;
}

/**
 * Why a job cannot run on this worker: its stack is not in the worker's config, or is in another pool
 * there. Either way the worker's config and the control plane's disagree, and the message says which key.
 */
function misplaced(deps: PoolJobDeps, job: PoolJob): string | undefined {
  const stack = deps.stack(job.stack);
  if (!stack)
    return `stack ${job.stack} is not in this worker's config (pool ${deps.pool}): the worker's config and the control plane's disagree, or the stack was removed`;
  if (stack.pool !== deps.pool)
    return `stack ${job.stack} is in pool ${stack.pool} in this worker's config, but its job came on pool ${deps.pool}: the worker's config and the control plane's disagree (stacks[].pool)`;
  return undefined;
}

/**
 * Runs one job a worker took: a check of a stack (a plan, its artifacts and run recorded in the shared
 * store, its outcome relayed by the bus), or the apply of an approved run. An apply is settled here
 * whatever happens to it (applied, failed, refused with the reason): its job never runs twice.
 */
export async function workPoolJob(deps: PoolJobDeps, taken: TakenJob): Promise<void> {
  const { job, signal } = taken;
  const wrong = misplaced(deps, job);
  const stack = deps.stack(job.stack);
  if (job.kind === 'check') {
    if (wrong || !stack) {
      deps.logger.error({ stack: job.stack, pool: deps.pool, jobId: taken.id }, wrong ?? 'unknown stack');
      return;
    }
    deps.logger.info({ stack: stack.name, pool: deps.pool, jobId: taken.id, retry: taken.retry }, 'check job started');
    await waitForStackLock(deps, stack.name, deps.timeouts.plan, signal);
    const outcome = await checkStackFromSource(deps, stack, { trigger: job.trigger, signal });
    deps.logger.info(
      { stack: stack.name, pool: deps.pool, status: outcome.status, retry: taken.retry },
      'check job finished',
    );
    return;
  }
  if (job.kind === 'apply') return applyJob(deps, job, stack, wrong, signal);
  return codifyJob(deps, job, stack, wrong, signal);
}

/** The run a job names; a job for a run the store does not have is said and dropped. */
async function runOf(deps: PoolJobDeps, job: Extract<PoolJob, { runId: string }>): Promise<Run | undefined> {
  const run = await deps.store.getRun(job.runId);
  if (!run)
    deps.logger.error({ stack: job.stack, runId: job.runId, job: job.kind }, 'job for a run the store does not have');
  return run;
}

/**
 * The terraform half of a remediation PR: the drift written into the code at the run's commit and checked
 * (fmt, validate, the provider schema). The answer, or why there is none, goes where the control plane
 * waits for it; the commit and the PR are the control plane's, which holds the GitHub token.
 */
async function codifyJob(
  deps: PoolJobDeps,
  job: Extract<PoolJob, { kind: 'codify' }>,
  stack: Stack | undefined,
  wrong: string | undefined,
  signal: AbortSignal,
): Promise<void> {
  const run = await runOf(deps, job);
  if (!run) return;
  const fail = (error: string) => storeCodified(deps, run.id, job.requestId, { status: 'failed', error });
  if (wrong || !stack) return fail(wrong ?? `unknown stack ${job.stack}`);
  if (!deps.git || !deps.checks) return fail('this worker cannot check out code');
  await waitForStackLock(deps, stack.name, deps.timeouts.plan, signal);
  let result: Codified;
  try {
    result = await codifyDrift({ ...deps, git: deps.git, checks: deps.checks }, stack, run, { signal });
  } catch (err) {
    const reason = failureReason(err);
    if (!(err instanceof DriftgateError)) deps.logger.error({ err, stack: stack.name, runId: run.id }, 'codify failed');
    return fail(deps.secrets.redact(reason, stack.name));
  }
  await storeCodified(deps, run.id, job.requestId, result);
  deps.logger.info({ stack: stack.name, runId: run.id, status: result.status }, 'codify job finished');
}

async function applyJob(
  deps: PoolJobDeps,
  job: Extract<PoolJob, { kind: 'apply' }>,
  stack: Stack | undefined,
  wrong: string | undefined,
  signal: AbortSignal,
): Promise<void> {
  const run = await runOf(deps, job);
  if (!run) return;
  const started = performance.now();
  let outcome: ApplyOutcome;
  if (wrong || !stack) outcome = { status: 'refused', code: 'not_started', reason: `nothing was applied: ${wrong}` };
  else {
    // Another worker's check may hold the stack; an apply refused as `locked` changed nothing, so it
    // tries again until the plan timeout (its plan may expire meanwhile, which it then says).
    const until = deps.now().getTime() + deps.timeouts.plan;
    for (;;) {
      await waitForStackLock(deps, stack.name, Math.max(0, until - deps.now().getTime()), signal);
      outcome = await applyRunFromSource(deps, stack, run.id, job.actor);
      if (outcome.status !== 'refused' || outcome.code !== 'locked') break;
      if (signal.aborted || deps.now().getTime() >= until) break;
    }
  }
  await settleApply(deps, run, job.actor, outcome, performance.now() - started);
}
