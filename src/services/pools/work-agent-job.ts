import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type OpFailure, OpRequests } from '../../domain/agent/op-messages.js';
import {
  BackendCredentialsError,
  failureReason,
  RemediationUnavailableError,
  StalePlanError,
  TerraformError,
} from '../../domain/errors.js';
import { analyzePlan } from '../../domain/plan/analyze.js';
import { parsePlanJson } from '../../domain/plan/schema.js';
import { codifyPlan } from '../remediation/codify-drift.js';
import { terraformCodeChecks } from '../remediation/remediation-code-checks.js';
import type { Stack } from '../../domain/stack.js';
import type { ChangeHistory } from '../../ports/change-history.js';
import type { ClaimedJob, ControlPlane } from '../../ports/control-plane.js';
import type { TerraformRunner } from '../../ports/terraform.js';
import type { ServiceDeps } from '../runtime/deps.js';
import { resolveStackAtCommit, type SourceDeps } from '../source/resolve-stack-at-commit.js';

export interface AgentJobDeps extends Partial<Pick<SourceDeps, 'git'>> {
  controlPlane: ControlPlane;
  terraform: TerraformRunner;
  /** This worker's stacks, from its own config (their vars and env are its pool's), found again on a miss. */
  stack: (name: string) => Stack | undefined | Promise<Stack | undefined>;
  pool: string;
  secrets: ServiceDeps['secrets'];
  logger: ServiceDeps['logger'];
  /** Scratch space for this worker's plan files (0700). */
  workDir: string;
  /** CloudTrail with this pool's credentials, when change events ask it (changeEvents.cloudTrail). */
  history?: ChangeHistory;
}

/**
 * Runs one job the control plane handed this worker: terraform for one stack, its output masked with the
 * stack's secrets as this worker knows them, its files uploaded, its result reported once. Whatever goes
 * wrong becomes the job's failure, which the control plane records as the run's; never thrown.
 */
export async function workAgentJob(deps: AgentJobDeps, claimed: ClaimedJob, signal: AbortSignal): Promise<void> {
  const { job, lease } = claimed;
  const { controlPlane, logger } = deps;
  const dir = join(deps.workDir, `job-${job.id}`);
  logger.info({ jobId: job.id, kind: job.kind, stack: job.stack, attempt: job.attempts }, 'job started');
  let result: unknown;
  try {
    const stack = await deps.stack(job.stack);
    if (!stack) throw new WorkerJobError(`stack ${job.stack} is not in this worker's config (pool ${deps.pool})`);
    if (stack.pool !== deps.pool)
      throw new WorkerJobError(
        `stack ${job.stack} is in pool ${stack.pool} in this worker's config, not ${deps.pool} (stacks[].pool)`,
      );
    await mkdir(dir, { recursive: true, mode: 0o700 });
    result = await run(deps, claimed, stack, dir, signal);
  } catch (err) {
    result = { ok: false, failure: failureOf(deps, job.stack, err) };
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
  if (signal.aborted) {
    logger.warn({ jobId: job.id, stack: job.stack }, 'job given up: its lease ended or this worker stops');
    return;
  }
  const taken = await controlPlane.result(job.id, lease, result);
  logger.info({ jobId: job.id, kind: job.kind, stack: job.stack, taken }, taken ? 'job done' : 'job result refused');
}

class WorkerJobError extends Error {}

async function run(
  deps: AgentJobDeps,
  { job, lease }: ClaimedJob,
  configured: Stack,
  dir: string,
  signal: AbortSignal,
): Promise<unknown> {
  const { controlPlane, terraform, secrets } = deps;
  const mask = (text: string) => secrets.redact(text, configured.name);
  const atCommit = async <T>(commitSha: string | undefined, work: (stack: Stack) => Promise<T>): Promise<T> => {
    if (!configured.git || !deps.git) return work(configured);
    if (!commitSha) throw new WorkerJobError(`stack ${configured.name} comes from Git, and its job names no commit`);
    const resolved = await resolveStackAtCommit({ git: deps.git, secrets }, configured, commitSha, { signal });
    try {
      return await work(resolved.stack);
    } finally {
      await resolved.release().catch(() => undefined);
    }
  };
  switch (job.kind) {
    case 'plan': {
      const request = OpRequests.plan.parse(job.request);
      return atCommit(request.commitSha, async (stack) => {
        const planFile = join(dir, 'plan.tfplan');
        const plan = await terraform.plan(stack, planFile, { signal });
        // The plan and its JSON go as they are (the control plane masks by the plan's own marks); the
        // output is masked here too, with the secrets only this worker's environment knows.
        const json = plan.hasChanges ? await terraform.showJson(stack, planFile, { signal }) : undefined;
        if (plan.hasChanges) await controlPlane.upload(job.id, lease, 'plan', await readFile(planFile));
        if (json !== undefined) await controlPlane.upload(job.id, lease, 'plan_json', json);
        const version = await terraform.version();
        return {
          ok: true,
          stdout: mask(plan.stdout),
          stderr: mask(plan.stderr),
          exitCode: plan.exitCode,
          durationMs: plan.durationMs,
          truncated: plan.truncated,
          ...(plan.cpuMs !== undefined ? { cpuMs: plan.cpuMs } : {}),
          hasChanges: plan.hasChanges,
          initRan: plan.initRan,
          version: { flavor: version.flavor, version: version.version, path: version.path },
        };
      });
    }
    case 'state_pull': {
      const request = OpRequests.state_pull.parse(job.request);
      return atCommit(request.commitSha, async (stack) => {
        await controlPlane.upload(job.id, lease, 'state', await terraform.statePull(stack, { signal }));
        return { ok: true };
      });
    }
    case 'apply': {
      const request = OpRequests.apply.parse(job.request);
      const plan = await controlPlane.file(job.id, lease, 'plan');
      // Exactly the plan that was reviewed: its bytes hash to what the control plane recorded at plan time.
      const sha256 = createHash('sha256').update(plan.body).digest('hex');
      if (sha256 !== request.planSha256)
        throw new WorkerJobError(
          `the saved plan's sha256 is ${sha256}, not the reviewed ${request.planSha256}: nothing applied`,
        );
      return atCommit(request.commitSha, async (stack) => {
        const planFile = join(dir, 'plan.tfplan');
        await writeFile(planFile, plan.body, { mode: 0o600 });
        const out = await terraform.apply(stack, planFile, { signal });
        return {
          ok: true,
          stdout: mask(out.stdout),
          stderr: mask(out.stderr),
          exitCode: out.exitCode,
          durationMs: out.durationMs,
          truncated: out.truncated,
        };
      });
    }
    case 'codify': {
      const request = OpRequests.codify.parse(job.request);
      if (!configured.git || !deps.git)
        throw new WorkerJobError(`stack ${configured.name} does not come from Git: there is no code to write into`);
      const planJson = await controlPlane.file(job.id, lease, 'plan_json');
      const plan = parsePlanJson(planJson.body.toString('utf8'));
      const { redactor: planRedactor } = analyzePlan(plan);
      try {
        const answer = await codifyPlan(
          { ...deps, git: deps.git, checks: terraformCodeChecks(terraform, deps.logger) },
          configured,
          request.commitSha,
          { plan, planRedactor },
          { signal },
        );
        return { ok: true, answer };
      } catch (err) {
        // Said to the person who asked, as a local remediation's reason would be.
        if (err instanceof RemediationUnavailableError)
          return { ok: true, answer: { status: 'failed', error: mask(err.message) } };
        throw err;
      }
    }
    case 'cloudtrail': {
      const request = OpRequests.cloudtrail.parse(job.request);
      if (!deps.history)
        throw new WorkerJobError(
          `this worker of pool ${deps.pool} asks no CloudTrail: set changeEvents.cloudTrail.region or AWS_REGION here`,
        );
      const found = await deps.history.changesTo(request.resourceName, new Date(request.since), { signal });
      return { ok: true, events: found.events, unreadable: found.unreadable, truncated: found.truncated };
    }
    default:
      throw new WorkerJobError(`this worker does not know jobs of kind ${job.kind}: upgrade it`);
  }
}

function failureOf(deps: AgentJobDeps, stack: string, err: unknown): OpFailure {
  const mask = (text: string) => deps.secrets.redact(text, stack).slice(-60_000);
  if (err instanceof StalePlanError)
    return { type: 'stale_plan', message: mask(err.message).slice(0, 4_000), stderrTail: mask(err.stderrTail) };
  if (err instanceof BackendCredentialsError)
    return {
      type: 'backend_credentials',
      message: mask(err.message).slice(0, 4_000),
      stderrTail: mask(err.stderrTail),
    };
  if (err instanceof TerraformError)
    return {
      type: 'terraform',
      command: err.command.slice(0, 200),
      ...(err.exitCode !== undefined ? { exitCode: err.exitCode } : {}),
      stderrTail: mask(err.stderrTail),
      timedOut: err.code === 'TERRAFORM_TIMEOUT',
    };
  if (!(err instanceof WorkerJobError)) deps.logger.error({ err, stack }, 'job failed');
  return { type: 'other', message: mask(failureReason(err)).slice(0, 8_000) };
}
