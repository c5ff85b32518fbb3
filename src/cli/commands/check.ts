import { parseArgs } from 'node:util';
import { runChecks } from '../../app/cli/checks.js';
import { createAppContext } from '../../app/context.js';
import { loadConfig } from '../../config/load.js';
import { ConfigError, DriftgateError, errorMessage } from '../../domain/errors.js';
import type { CliIo } from '../io.js';
import { cliActor } from '../cli-actor.js';
import { useColor } from '../color.js';
import { configOptions } from '../config-options.js';
import { UsageError } from '../io.js';
import { checkProgress } from '../render/check-progress.js';
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
    outcomes = await runChecks(context, stacks, {
      wait,
      actor: cliActor(io),
      ...(progress ? { progress } : {}),
      onShutdown: (stop) => io.onShutdown(stop),
    });
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
