import { parseArgs } from 'node:util';
import { createAppContext } from '../../app/context.js';
import { loadConfig } from '../../config/load.js';
import { ConfigError } from '../../domain/errors.js';
import type { CheckOutcome } from '../../services/check-stack.js';
import { createGitSources } from '../../adapters/git/git-sources.js';
import { checkStackFromSource } from '../../services/check-stack-from-source.js';
import { createScheduler } from '../../services/scheduler.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../io.js';
import { checkExitCode, checkReportJson, renderCheckReport } from '../render/check-report.js';
import { logSettings } from '../log-options.js';
import { selectStacks } from '../select-stacks.js';

const NO_STACKS = 'no stacks to check:';
const NOTHING_DISCOVERED = {
  path: 'discover',
  message:
    'its globs matched no directory holding *.tf files; fix them or list stacks under "stacks:" (driftgate validate names each rule)',
};

/** `driftgate check`: plan the chosen stacks now; exit 0 in sync, 2 changes or drift, 1 error. */
export async function checkCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { all: { type: 'boolean' }, json: { type: 'boolean' }, config: { type: 'string', short: 'c' } },
  });
  if (!values.all && positionals.length === 0) throw new UsageError('name one or more stacks, or use --all');
  const config = await loadConfig({ file: values.config, cwd: io.cwd, env: io.env });
  // A config without stacks does not load, so none here means discovery found nothing.
  if (values.all && config.stacks.length === 0) throw new ConfigError([NOTHING_DISCOVERED], config.file, NO_STACKS);
  const stacks = values.all ? config.stacks : selectStacks(config.stacks, positionals);
  const context = await createAppContext(config, {
    env: io.env,
    logDestination: io.stderr,
    log: logSettings(io.log, config.log.level, 'human'),
  });
  let outcomes: CheckOutcome[];
  try {
    outcomes = await runChecks(context, stacks, io);
  } finally {
    await context.close();
  }

  io.stdout.write(
    values.json
      ? `${JSON.stringify(checkReportJson(outcomes), null, 2)}\n`
      : renderCheckReport(outcomes, { color: Boolean(io.stdout.isTTY) && !io.env.NO_COLOR }),
  );
  return checkExitCode(outcomes);
}

/** Checks stacks with the configured concurrency; Ctrl-C aborts the plans (terraform gets SIGINT). */
export async function runChecks(
  context: Awaited<ReturnType<typeof createAppContext>>,
  stacks: Awaited<ReturnType<typeof loadConfig>>['stacks'],
  io: Pick<CliIo, 'onShutdown' | 'env'>,
): Promise<CheckOutcome[]> {
  const git = createGitSources({ dataDir: context.config.dataDir, env: io.env, logger: context.logger });
  const scheduler = createScheduler<CheckOutcome>({
    stacks,
    concurrency: context.config.defaults.concurrency,
    jitterMs: 0,
    logger: context.logger,
    check: (stack, trigger, signal) => checkStackFromSource({ ...context.deps, git }, stack, { trigger, signal }),
  });
  io.onShutdown(() => void scheduler.stop(0));
  const settled = await Promise.allSettled(stacks.map((s) => scheduler.request(s.name, 'manual')));
  return settled.map((r, i) =>
    r.status === 'fulfilled'
      ? r.value
      : {
          stack: stacks[i]!.name,
          status: 'errored',
          error: r.reason instanceof Error ? r.reason.message : String(r.reason),
          stderrTail: '',
        },
  );
}
