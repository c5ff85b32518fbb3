import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { readFile, writeFile } from 'node:fs/promises';
import {
  type ApplyOpResult,
  type OpFailure,
  OpResults,
  type PlanOpResult,
  type StatePullOpResult,
} from '../../domain/agent/op-messages.js';
import {
  BackendCredentialsError,
  DriftgateError,
  StalePlanError,
  StoreUnavailableError,
  TerraformError,
  WorkerLostError,
} from '../../domain/errors.js';
import type { Stack } from '../../domain/stack.js';
import type { AgentOpFile, AgentOpKind, AgentOpRunner, AgentOpStore } from '../../ports/agent-ops.js';
import { driftgateAdvice } from '../terraform/diagnostics.js';
import type { CommandOutput, PlanResult, RunOptions, TerraformRunner } from '../../ports/terraform.js';
import type { Logger } from '../../ports/logger.js';

export interface TerraformOnWorkersOptions {
  run: AgentOpRunner;
  timeouts: { plan: number; apply: number };
  /** Attempts of an op that changes nothing (plan, state pull) when its worker goes away. */
  attempts?: number;
}

export interface OpRunnerOptions {
  ops: AgentOpStore;
  logger: Pick<Logger, 'warn'>;
  newId: () => string;
  /** How long an op may wait for a worker of its pool to take it. */
  queueWaitMs: number;
  /** How often a waiter reads its op when nothing woke it (a result or a lost lease wakes it at once). */
  pollMs?: number;
}

/**
 * Queues an op on the pool and waits for its worker's result; an op no worker takes in time, or whose
 * worker goes away past its attempts, fails with what happened. Nobody waiting any more (a stop) cancels it.
 */
export function createOpRunner(options: OpRunnerOptions): AgentOpRunner {
  const { ops, logger } = options;
  const pollMs = options.pollMs ?? 2_000;
  return async (kind, target, request, limits) => {
    const id = options.newId();
    await ops.enqueue({
      id,
      pool: target.pool,
      stack: target.stack,
      kind,
      request,
      maxAttempts: limits.attempts,
      ...(limits.files ? { files: limits.files } : {}),
    });
    const deadline = Date.now() + options.queueWaitMs + limits.attempts * limits.runMs;
    let taken = false;
    try {
      for (;;) {
        if (limits.signal?.aborted) throw new TerraformError(kind, undefined, 'stopped', 'TERRAFORM_TIMEOUT');
        const op = await ops.get(id).catch((err: unknown) => {
          // The worker goes on and stores its answer once the store is back: wait for it, as for a worker.
          if (err instanceof StoreUnavailableError) return 'unreachable' as const;
          throw err;
        });
        if (op === 'unreachable') {
          if (Date.now() > deadline)
            throw new WorkerLostError(
              `the store did not answer while ${kind} of ${target.stack} ran on pool ${target.pool}`,
            );
          await sleep(pollMs, undefined, limits.signal ? { signal: limits.signal } : {}).catch(() => undefined);
          continue;
        }
        if (!op) throw new DriftgateError('EXTERNAL_SERVICE', `agent op ${id} for ${target.stack} disappeared`);
        if (op.state === 'done') {
          taken = true;
          return {
            result: op.result,
            file: async (name) => (await ops.file(id, 'out', name))?.body,
            done: () => ops.remove(id),
          };
        }
        if (op.state === 'lost')
          throw new WorkerLostError(
            `the worker of pool ${target.pool} running terraform ${kind} for ${target.stack} stopped answering (its lease ran out)`,
          );
        if (Date.now() > deadline)
          throw new TerraformError(
            kind,
            undefined,
            op.state === 'queued'
              ? `no worker of pool ${target.pool} took it in time: is one running (driftgate workers)?`
              : '',
            'TERRAFORM_TIMEOUT',
          );
        await ops.settled(id, pollMs, limits.signal);
      }
    } finally {
      if (!taken) {
        await ops.cancel(id).catch(() => undefined);
        await ops.remove(id).catch((err: unknown) => logger.warn({ err, opId: id }, 'removing an agent op failed'));
      }
    }
  };
}

/**
 * terraform on a pool's workers, through the agent API: each command is an op on the stack's pool, which a
 * worker leases, runs and answers. The services that call it (check, apply) run here, on the control plane,
 * as with local runners: runs, locks, approvals, artifacts and their sha256 never leave it.
 */
export function terraformOnWorkers(options: TerraformOnWorkersOptions): TerraformRunner {
  // A plan's JSON arrives with the plan (one worker, one init): kept for the showJson that follows it.
  const planJson = new Map<string, string>();

  const run = (
    kind: AgentOpKind,
    stack: Stack,
    request: object,
    limits: { runMs: number; attempts: number; signal?: AbortSignal; files?: AgentOpFile[] },
  ) => options.run(kind, { pool: stack.pool, stack: stack.name }, request, limits);
  /** A command that changes nothing, at the stack's commit: tried again on another worker if its worker goes. */
  const reading = (kind: 'plan' | 'state_pull', stack: Stack, runOptions: RunOptions) =>
    run(kind, stack, stack.commitSha ? { commitSha: stack.commitSha } : {}, {
      runMs: options.timeouts.plan,
      attempts: options.attempts ?? 3,
      ...(runOptions.signal ? { signal: runOptions.signal } : {}),
    });

  return {
    async version() {
      // Each pool's workers may run another terraform: every plan says which (PlanResult.terraformVersion).
      throw new DriftgateError('EXTERNAL_SERVICE', "the workers' terraform versions come with their plans");
    },
    async plan(stack, planFile, runOptions: RunOptions = {}): Promise<PlanResult> {
      const op = await reading('plan', stack, runOptions);
      try {
        const result: PlanOpResult = OpResults.plan.parse(op.result);
        if (!result.ok) throw failureError('plan', result.failure);
        if (result.hasChanges) {
          // Saved only when it has changes: a clean plan is never reviewed or applied.
          const plan = await op.file('plan');
          if (!plan)
            throw new DriftgateError(
              'EXTERNAL_SERVICE',
              `the worker's plan of ${stack.name} came without its plan file`,
            );
          await writeFile(planFile, plan, { mode: 0o600 });
          const json = await op.file('plan_json');
          if (!json)
            throw new DriftgateError('EXTERNAL_SERVICE', `the worker's plan of ${stack.name} came without its JSON`);
          planJson.set(planFile, json.toString('utf8'));
        }
        return {
          ...commandOutput(result),
          ...(result.cpuMs !== undefined ? { cpuMs: result.cpuMs } : {}),
          hasChanges: result.hasChanges,
          planFile,
          initRan: result.initRan,
          terraformVersion: result.version.version,
        };
      } finally {
        await op.done();
      }
    },
    async showJson(stack, planFile) {
      const json = planJson.get(planFile);
      planJson.delete(planFile);
      if (json === undefined)
        throw new DriftgateError('EXTERNAL_SERVICE', `no plan JSON came with the worker's plan of ${stack.name}`);
      return json;
    },
    async statePull(stack, runOptions: RunOptions = {}) {
      const op = await reading('state_pull', stack, runOptions);
      try {
        const result: StatePullOpResult = OpResults.state_pull.parse(op.result);
        if (!result.ok) throw failureError('state pull', result.failure);
        const state = await op.file('state');
        if (!state) throw new DriftgateError('EXTERNAL_SERVICE', `the worker's state pull of ${stack.name} came empty`);
        return state.toString('utf8');
      } finally {
        await op.done();
      }
    },
    async apply(stack, planFile, runOptions: RunOptions = {}): Promise<CommandOutput> {
      const plan = await readFile(planFile);
      const planSha256 = createHash('sha256').update(plan).digest('hex');
      // Never tried twice: a worker that went away may have applied part of it.
      const op = await run(
        'apply',
        stack,
        { ...(stack.commitSha ? { commitSha: stack.commitSha } : {}), planSha256 },
        {
          runMs: options.timeouts.apply,
          attempts: 1,
          files: [{ name: 'plan', body: plan }],
          ...(runOptions.signal ? { signal: runOptions.signal } : {}),
        },
      );
      try {
        const result: ApplyOpResult = OpResults.apply.parse(op.result);
        if (!result.ok) throw failureError('apply', result.failure);
        return commandOutput(result);
      } finally {
        await op.done();
      }
    },
    providersSchema: notHere('providers schema'),
    fmtCheck: notHere('fmt'),
    validate: notHere('validate'),
  };
}

/** What the worker's terraform printed and how it ended, as a local run reports it; a plan adds its CPU time. */
function commandOutput(result: CommandOutput): CommandOutput {
  return {
    stdout: result.stdout,
    stderr: result.stderr,
    exitCode: result.exitCode,
    durationMs: result.durationMs,
    truncated: result.truncated,
  };
}

/** The error a local terraform would have thrown, rebuilt from what the worker said. */
function failureError(command: string, failure: OpFailure): Error {
  switch (failure.type) {
    case 'terraform':
      return new TerraformError(
        failure.command || command,
        failure.exitCode,
        failure.stderrTail,
        failure.timedOut ? 'TERRAFORM_TIMEOUT' : 'TERRAFORM_FAILED',
        driftgateAdvice(failure.stderrTail),
      );
    case 'stale_plan':
      return new StalePlanError(failure.message, failure.stderrTail);
    case 'backend_credentials':
      return new BackendCredentialsError(failure.message, failure.stderrTail);
    default:
      return new DriftgateError('EXTERNAL_SERVICE', `on the worker: ${failure.message}`);
  }
}

function notHere(what: string) {
  return async (): Promise<never> => {
    throw new DriftgateError(
      'EXTERNAL_SERVICE',
      `terraform ${what} runs on a worker with the remediation's code, not here`,
    );
  };
}
