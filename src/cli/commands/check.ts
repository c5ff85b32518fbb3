import { parseArgs } from 'node:util';
import { createAppContext } from '../../app/context.js';
import { loadConfig } from '../../config/load.js';
import { ConfigError, DriftgateError, errorMessage } from '../../domain/errors.js';
import type { CheckOutcome } from '../../services/check-stack.js';
import { checkStackFromSource } from '../../services/check-stack-from-source.js';
import { createScheduler, SchedulerStoppedError } from '../../services/scheduler.js';
import { waitForStackLock } from '../../services/stack-lock.js';
import type { CliIo } from '../io.js';
import { useColor } from '../color.js';
import { configOptions } from '../config-options.js';
import { UsageError } from '../io.js';
import { type CheckProgress, checkProgress } from '../render/check-progress.js';
import { checkExitCode, checkReportJson, type ReportedOutcome, renderCheckReport } from '../render/check-report.js';
import { logSettings } from '../log-options.js';
import { selectStacks } from '../select-stacks.js';

/** `driftgate check`: plan the chosen stacks now; exit 0 in sync, 2 changes or drift, 1 error. */
export async function checkCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      all: { type: 'boolean' },
      json: { type: 'boolean' },
      'no-wait': { type: 'boolean' },
      config: { type: 'string', short: 'c' },
    },
  });
  if (!values.all && positionals.length === 0) throw new UsageError('name one or more stacks, or use --all');
  const config = await loadConfig(configOptions(values.config, io)).catch((err: unknown) => {
    // A script reading stdout gets a document it can parse, and the person the same error on stderr.
    if (values.json) io.stdout.write(`${JSON.stringify(checkErrorJson(err), null, 2)}\n`);
    throw err;
  });
  const stacks = values.all ? config.stacks : selectStacks(config.stacks, positionals);
  const context = await createAppContext(config, {
    env: io.env,
    logDestination: io.stderr,
    log: logSettings(io.log, config.log.level, 'human'),
  });
  const wait = !values['no-wait'];
  let outcomes: ReportedOutcome[];
  try {
    // JSON logs are for a machine: no lines of text among them.
    const progress =
      io.log?.format === 'json' ? undefined : checkProgress(io.stderr, stacks.length, { noWaitHint: wait });
    outcomes = await runChecks(context, stacks, io, { wait, ...(progress ? { progress } : {}) });
  } finally {
    await context.close();
  }

  io.stdout.write(
    values.json
      ? `${JSON.stringify(checkReportJson(outcomes), null, 2)}\n`
      : renderCheckReport(outcomes, { color: useColor(io) }),
  );
  return checkExitCode(outcomes);
}

/** `check --json` when there is no report to give (an invalid config): the error, in a document. */
function checkErrorJson(err: unknown): object {
  const error =
    err instanceof ConfigError
      ? { code: err.code, message: err.message, file: err.file ?? null, issues: err.issues }
      : { code: err instanceof DriftgateError ? err.code : null, message: errorMessage(err) };
  return { version: 1, exitCode: 1, stacks: [], error };
}

export interface RunChecksOptions {
  /**
   * Wait, up to the state lock timeout (terraform.timeouts.lock), for a stack another process holds
   * (another check, serve's schedule, an apply) instead of failing at once on its lock.
   */
  wait?: boolean;
  progress?: CheckProgress;
}

/** Checks stacks with the configured concurrency; Ctrl-C aborts the plans (terraform gets SIGINT). */
export async function runChecks(
  context: Awaited<ReturnType<typeof createAppContext>>,
  stacks: Awaited<ReturnType<typeof loadConfig>>['stacks'],
  io: Pick<CliIo, 'onShutdown' | 'env'>,
  options: RunChecksOptions = {},
): Promise<ReportedOutcome[]> {
  const { progress } = options;
  const deps = {
    ...context.deps,
    git: context.git,
  };
  const lockWait = context.config.terraform.timeouts.lock;
  const scheduler = createScheduler<CheckOutcome>({
    stacks,
    concurrency: context.config.defaults.concurrency,
    jitterMs: 0,
    logger: context.logger,
    check: async (stack, trigger, signal) => {
      const started = performance.now();
      progress?.started(stack.name);
      if (options.wait)
        await waitForStackLock(deps, stack.name, lockWait, signal, (holder) =>
          progress?.waiting(stack.name, holder, lockWait),
        );
      // Ctrl-C while it waited: it never started.
      if (signal.aborted) throw new SchedulerStoppedError(stack.name);
      const outcome = await checkStackFromSource(deps, stack, { trigger, signal });
      progress?.finished(outcome, performance.now() - started);
      return outcome;
    },
  });
  io.onShutdown(() => void scheduler.stop(0));
  const settled = await Promise.allSettled(stacks.map((s) => scheduler.request(s.name, 'manual')));
  return settled.map((r, i): ReportedOutcome => {
    if (r.status === 'fulfilled') return r.value;
    const stack = stacks[i]!.name;
    if (r.reason instanceof SchedulerStoppedError)
      return { stack, status: 'skipped', reason: 'stopped before it started' };
    return { stack, status: 'errored', error: errorMessage(r.reason), stderrTail: '' };
  });
}
