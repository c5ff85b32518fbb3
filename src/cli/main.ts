import { ConfigError, DriftgateError } from '../domain/errors.js';
import { baselineCommand, BASELINE_USAGE } from './commands/baseline.js';
import { checkCommand, CHECK_USAGE } from './commands/check.js';
import { demoCommand } from './commands/demo.js';
import { doctorCommand, DOCTOR_USAGE } from './commands/doctor.js';
import { initCommand, INIT_USAGE } from './commands/init.js';
import { serveCommand } from './commands/serve.js';
import { unlockCommand } from './commands/unlock.js';
import { validateCommand } from './commands/validate.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';

const USAGE = `driftgate: drift detection and reviewed applies for Terraform and OpenTofu

Usage:
  ${CHECK_USAGE}
      Plan stacks now. Exit 0: in sync; 2: drift or changes; 1: error.
  driftgate validate [--config FILE]
      Check the config file: every error with its path.
  driftgate serve [--config FILE] [--port N]
      Run the scheduler (and /healthz, /readyz) until SIGTERM.
  driftgate unlock STACK [--config FILE]
      Unblock a stack after an interrupted apply, once its real state was checked.
  ${BASELINE_USAGE}
      Record a commit (default: the branch head) as last applied, for a stack applied elsewhere.
  ${INIT_USAGE}
      Find the stacks of a repository and write a commented driftgate.yml for them.
  ${DOCTOR_USAGE}
      Check this deployment: terraform, stacks, artifact store, Slack, GitHub, PagerDuty.
  driftgate demo [--keep]
      Offline demo on the bundled example stacks: apply, drift by hand, check.

The config file is --config, else $DRIFTGATE_CONFIG, else ./driftgate.yml.
`;

const COMMANDS: Record<string, (args: string[], io: CliIo) => Promise<number>> = {
  check: checkCommand,
  validate: validateCommand,
  serve: serveCommand,
  unlock: unlockCommand,
  baseline: baselineCommand,
  demo: demoCommand,
  init: initCommand,
  doctor: doctorCommand,
};

/** Runs one CLI command and returns its exit code; never throws. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    io.stdout.write(USAGE);
    return name ? 0 : 1;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr.write(`driftgate: unknown command "${name}"\n\n${USAGE}`);
    return 1;
  }
  try {
    return await command(args, io);
  } catch (err) {
    if (
      err instanceof UsageError ||
      (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      io.stderr.write(`driftgate ${name}: ${err.message}\n\n${USAGE}`);
    } else if (err instanceof ConfigError) {
      io.stderr.write(`driftgate ${name}: ${err.message}\n`);
    } else if (err instanceof DriftgateError) {
      io.stderr.write(`driftgate ${name}: ${err.message}\n`);
    } else {
      io.stderr.write(
        `driftgate ${name}: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
    }
    return 1;
  }
}
