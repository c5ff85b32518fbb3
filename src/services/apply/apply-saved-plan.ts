import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Stack } from '../../domain/stack.js';
import {
  BackendCredentialsError,
  StalePlanError,
  TerraformError,
  WorkerLostError,
  failureReason,
} from '../../domain/errors.js';
import { reportInterruptedApplies } from './report-interrupted-applies.js';
import { analyzePlan } from '../../domain/plan/analyze.js';
import { parsePlanJson } from '../../domain/plan/schema.js';
import type { Run } from '../../domain/run/model.js';
import { planExpired } from '../../domain/run/plan-age.js';
import { AWAITING_DECISION } from '../../domain/run/state.js';
import { applyDir, markApplyHanded } from './apply-handoff.js';
import { loadArtifact, storeArtifact } from '../runtime/artifacts.js';
import { checkStack, type CheckOutcome } from '../check/check-stack.js';
import type { ServiceDeps } from '../runtime/deps.js';
import { holdStackLockWaiting } from '../runtime/stack-lock.js';
import { recordAppliedEvidence } from '../check/drift-causes.js';

export type ApplyOutcome =
  | { status: 'applied'; run: Run; output: string; verification: CheckOutcome }
  | { status: 'apply_failed'; run: Run; error: string; output: string; verification: CheckOutcome }
  /**
   * The worker applying it went away (terraform ran elsewhere, on a pool's worker): the run is interrupted
   * and its stack blocked, as after a crash, already told where people look.
   */
  | { status: 'interrupted'; run: Run; reason: string }
  /**
   * Nothing was applied. `expired`: the plan is older than maxPlanAge; `stale`: terraform refused it because
   * the state moved since; `credentials`: the backend refused the credentials saved with the plan before
   * anything changed; in each case the run is now expired. `not_started`: the run's code could not be
   * checked out. `not_found`, `not_applyable`: the run is not there or not waiting (nothing changed).
   * `stopping`: this process stopped while the apply waited for the stack (still approved).
   */
  | {
      status: 'refused';
      reason: string;
      code:
        | 'not_found'
        | 'not_applyable'
        | 'expired'
        | 'blocked'
        | 'locked'
        | 'stale'
        | 'credentials'
        | 'not_started'
        | 'stopping';
    };

/**
 * Applies exactly the saved plan that was reviewed. The run moves to `applying` by compare-and-set, so of
 * many concurrent callers one applies and the others are refused; the plan file's sha256 must match the
 * one recorded at plan time. A verification plan follows, success or not, so the result is never a guess.
 */
export async function applySavedPlan(
  deps: ServiceDeps,
  stack: Stack,
  runId: string,
  actor: string,
  /** This process stops: an apply still waiting for the stack gives up its turn (the run stays approved). */
  signal?: AbortSignal,
): Promise<ApplyOutcome> {
  const { store } = deps;
  const run = await store.getRun(runId);
  if (!run || run.stack !== stack.name)
    return { status: 'refused', code: 'not_found', reason: `no run ${runId} for stack ${stack.name}` };
  const blocked = (await store.getStack(stack.name))?.blockedReason;
  if (blocked) return { status: 'refused', code: 'blocked', reason: `stack ${stack.name} is blocked: ${blocked}` };
  if (planExpired(run, deps.now(), deps.maxPlanAgeMs)) {
    await store.transition(run.id, AWAITING_DECISION, 'expired', { error: 'plan older than maxPlanAge' });
    return {
      status: 'refused',
      code: 'expired',
      reason: `the plan of run ${run.id} is older than maxPlanAge; a new plan is needed`,
    };
  }

  // Another replica's check or apply of the stack: this apply waits its turn, then runs (never dropped).
  const lock = await holdStackLockWaiting(deps, stack.name, run.id, deps.applyLockWaitMs ?? 0, signal);
  if (!lock.acquired && signal?.aborted)
    return {
      status: 'refused',
      code: 'stopping',
      reason: `driftgate stopped while the apply waited for ${stack.name}`,
    };
  if (!lock.acquired)
    return { status: 'refused', code: 'locked', reason: `stack ${stack.name} is locked by run ${lock.holder.runId}` };
  const applying = await store.transition(run.id, AWAITING_DECISION, 'applying');
  if (!applying) {
    await lock.release();
    const state = (await store.getRun(run.id))?.state ?? 'unknown';
    return { status: 'refused', code: 'not_applyable', reason: `run ${run.id} is ${state}; it cannot be applied` };
  }
  await store.appendAudit({
    at: deps.now(),
    actor,
    action: 'apply_started',
    runId: run.id,
    stack: stack.name,
    planSha256: run.planSha256,
  });

  const runDir = applyDir(deps.workDir, run.id);
  let result: ApplyAttempt;
  let finished: Run | undefined;
  try {
    result = await runTerraformApply(deps, stack, applying, runDir);
    // Its end is recorded while the lock is held: a run applying without its lock is one nobody drives any
    // more (its end could not be recorded: the store was out of reach), which the leader's sweep interrupts.
    if (!result.ok && (result.lost || result.refused)) return await endUnapplied(deps, stack, applying, actor, result);
    finished = await recordApplied(deps, stack, run, actor, result);
  } finally {
    await rm(runDir, { recursive: true, force: true }).catch(() => undefined);
    // A store out of reach: the lock lapses at its TTL, as a stopped process's does.
    await lock
      .release()
      .catch((err: unknown) =>
        deps.logger.warn({ err, stack: stack.name, runId: run.id }, 'stack lock release failed'),
      );
  }

  const verification = await checkStack(deps, stack, { trigger: 'verify', commitSha: run.commitSha });
  // What the apply left (state, inputs, providers), failed or not, is what later checks' causes compare with.
  await recordAppliedEvidence(deps, run.id, 'run' in verification ? verification.run?.id : undefined);
  const final = finished ?? (await store.getRun(run.id)) ?? applying;
  return result.ok
    ? { status: 'applied', run: final, output: result.output, verification }
    : { status: 'apply_failed', run: final, error: result.error, output: result.output, verification };
}

/** An apply that changed nothing (refused) or whose worker went away (interrupted, its stack blocked). */
async function endUnapplied(
  deps: ServiceDeps,
  stack: Stack,
  run: Run,
  actor: string,
  result: ApplyAttempt & { ok: false },
): Promise<ApplyOutcome> {
  const { store } = deps;
  if (result.lost) {
    const reason = `${result.error}: the stack may be partly applied, and terraform may still hold its state lock`;
    const interrupted = await store.transition(run.id, 'applying', 'interrupted', { error: reason });
    // Already interrupted by a recovery (its lock lapsed while the store was out of reach): that recovery
    // blocked the stack and told it; a second telling would page twice.
    if (!interrupted) return { status: 'interrupted', run: (await store.getRun(run.id)) ?? run, reason };
    await store.blockStack(
      stack.name,
      `apply of run ${run.id} was interrupted: the real infrastructure may be half applied; check its state before unblocking`,
    );
    await reportInterruptedApplies(deps, [interrupted]);
    return { status: 'interrupted', run: interrupted, reason };
  }
  const code = result.refused ?? 'stale';
  await store.transition(run.id, 'applying', 'expired', { error: result.error });
  await store.appendAudit({
    at: deps.now(),
    actor,
    action: `apply_refused_${code}`,
    runId: run.id,
    stack: stack.name,
    planSha256: run.planSha256,
  });
  return { status: 'refused', code, reason: result.error };
}

/** The run's end (applied or apply_failed), its audit, and the commit now applied. */
async function recordApplied(
  deps: ServiceDeps,
  stack: Stack,
  run: Run,
  actor: string,
  result: ApplyAttempt,
): Promise<Run | undefined> {
  const { store } = deps;
  const finished = result.ok
    ? await store.transition(run.id, 'applying', 'applied')
    : await store.transition(run.id, 'applying', 'apply_failed', { error: result.error });
  await store.appendAudit({
    at: deps.now(),
    actor,
    action: result.ok ? 'applied' : 'apply_failed',
    runId: run.id,
    stack: stack.name,
    planSha256: run.planSha256,
    detail: result.ok ? undefined : { error: result.error },
  });
  if (result.ok && run.commitSha) await store.setLastAppliedCommit(stack.name, run.commitSha);
  return finished;
}

/** `refused`: terraform stopped before changing anything, for a reason a fresh plan resolves. */
type ApplyAttempt =
  | { ok: true; output: string }
  | { ok: false; error: string; output: string; refused?: 'stale' | 'credentials'; lost?: true };

async function runTerraformApply(deps: ServiceDeps, stack: Stack, run: Run, runDir: string): Promise<ApplyAttempt> {
  try {
    // The bytes must hash to what the run recorded when it was reviewed, whatever the store's own record says.
    const plan = run.planSha256 ? await loadArtifact(deps, run.id, 'plan', run.planSha256) : undefined;
    if (!plan) return { ok: false, error: 'the saved plan of this run is missing from the artifact store', output: '' };
    const planJson = await loadArtifact(deps, run.id, 'plan_json');
    const redactor = planJson ? analyzePlan(parsePlanJson(planJson.toString('utf8'))).redactor : undefined;
    if (redactor) deps.secrets.add(stack.name, redactor);

    await mkdir(runDir, { recursive: true, mode: 0o700 });
    const planFile = join(runDir, 'plan.tfplan');
    await writeFile(planFile, plan, { mode: 0o600 });
    await markApplyHanded(deps.workDir, run.id);
    const out = await deps.terraform.apply(stack, planFile);
    const output = deps.secrets.redact(`${out.stdout}\n${out.stderr}`.trim(), stack.name);
    await storeArtifact(deps, run.id, 'apply_log', output);
    return { ok: true, output };
  } catch (err) {
    if (err instanceof WorkerLostError) return { ok: false, lost: true, error: err.message, output: '' };
    if (err instanceof StalePlanError || err instanceof BackendCredentialsError) {
      const output = deps.secrets.redact(err.stderrTail, stack.name);
      await storeArtifact(deps, run.id, 'apply_log', output).catch(() => undefined);
      return {
        ok: false,
        refused: err instanceof StalePlanError ? 'stale' : 'credentials',
        // terraform's own words say which backend and which credentials; the tail is masked.
        error: deps.secrets.redact(
          err instanceof StalePlanError ? err.message : `${err.message}:\n${err.stderrTail}`,
          stack.name,
        ),
        output,
      };
    }
    const output = err instanceof TerraformError ? err.stderrTail : '';
    const reason = failureReason(err);
    const error = deps.secrets.redact(
      `${reason}\nThe stack may be partly applied: driftgate runs a new plan now to show what remains.`,
      stack.name,
    );
    await storeArtifact(deps, run.id, 'apply_log', deps.secrets.redact(output, stack.name)).catch(() => undefined);
    return { ok: false, error, output: deps.secrets.redact(output, stack.name) };
  }
}
