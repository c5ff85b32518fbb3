import { ConfigError, DriftgateError } from '../domain/errors.js';
import { suggest } from '../domain/suggest.js';
import { commandHelp, commandOptions, driftgateVersion, GLOBAL_OPTIONS_USAGE, usageHint } from './help.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';
import { takeLogOptions } from './log-options.js';

const USAGE = `driftgate: drift detection and reviewed applies for Terraform and OpenTofu

Usage:
  driftgate check [STACK|GLOB ...] [--all] [--json] [--no-wait] [--config FILE]
      Plan stacks now. Exit 0: in sync; 2: drift or changes; 1: error.
  driftgate validate [--config FILE]
      Check the config file: every error with its path.
  driftgate serve [--config FILE] [--port N] [--agent-port N]
      Run the scheduler (and /healthz, /readyz, /metrics) until SIGTERM; logs JSON.
  driftgate worker --pool NAME [--concurrency N] [--config FILE] [--port N]
      Take the pool's plan and apply jobs (runners: workers) until SIGTERM; logs JSON.
  driftgate status [STACK|GLOB ...] [--json] [--config FILE]
      Where each stack stands, from the store (no plan): state, last check, open runs and their
      approvals, locks, blocks, silences. Exit 0; 2: a stack is drifted, waiting, failed or blocked.
  driftgate approve RUN --as USER [--config FILE]
      Approve a run as approver USER (a Slack user id), checked and counted as a click in Slack; the
      approval that completes the quorum applies the reviewed plan here. Needs approvers.allowCli.
  driftgate reject RUN --as USER [--reason TEXT] [--config FILE]
      Reject a run as approver USER; the same drift is not alerted again for defaults.snooze.
  driftgate terraform-runner --dir DIR [--socket PATH] [--binary terraform|tofu|PATH]
      In a worker pod's second container: run its worker's terraform (runners.terraformContainer).
  driftgate unlock STACK [--config FILE]
      Unblock a stack after an interrupted apply, once its real state was checked.
  driftgate workers [--json] [--config FILE]
      List the worker pools (runners: workers): workers, live and stale, and queues.
      Exit 0; 2: a pool has work waiting and no live worker.
  driftgate pool token create POOL [--name NAME] | list [POOL] | revoke POOL TOKEN_ID [--json] [--config FILE]
      The tokens a pool's workers present to the control plane's agent API (runners: workers).
  driftgate migrate [--to postgres] [--from FILE] [--config FILE]
      Bring the Postgres store's schema up to date (as the owner role in $DATABASE_OWNER_URL);
      --to postgres: then copy the SQLite store into it (it must be empty); stop serve first.
  driftgate backup FILE [--config FILE]
      Copy the SQLite store to FILE, consistently, while serve runs.
  driftgate baseline STACK [--commit SHA] [--config FILE]
      Record a commit (default: the branch head) as last applied, for a stack applied elsewhere.
  driftgate init [DIR] [--force]
      Find the stacks of a repository and write a commented driftgate.yml for them.
  driftgate doctor [--pool NAME] [--config FILE]
      Check this deployment: terraform, stacks, artifact store, Slack, GitHub, PagerDuty, change events;
      with --pool, as a worker of that pool: its stacks and its cloud access.
  driftgate demo [--keep]
      Offline demo on the bundled example stacks: apply, drift by hand, check.

Every command takes ${GLOBAL_OPTIONS_USAGE} and --help; driftgate --version prints the version.
The config file is --config, else $DRIFTGATE_CONFIG, else ./driftgate.yml.
`;

type Command = (args: string[], io: CliIo) => Promise<number>;

/**
 * Each command's module is loaded when it runs: `--version`, `--help` and a mistyped command answer
 * without loading terraform, Slack, Postgres and S3 code they do not use.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  check: async () => (await import('./commands/check.js')).checkCommand,
  validate: async () => (await import('./commands/validate.js')).validateCommand,
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  worker: async () => (await import('./commands/worker.js')).workerCommand,
  status: async () => (await import('./commands/status.js')).statusCommand,
  approve: async () => (await import('./commands/decide.js')).approveCommand,
  reject: async () => (await import('./commands/decide.js')).rejectCommand,
  'terraform-runner': async () => (await import('./commands/terraform-runner.js')).terraformRunnerCommand,
  unlock: async () => (await import('./commands/unlock.js')).unlockCommand,
  baseline: async () => (await import('./commands/baseline.js')).baselineCommand,
  migrate: async () => (await import('./commands/migrate.js')).migrateCommand,
  backup: async () => (await import('./commands/backup.js')).backupCommand,
  workers: async () => (await import('./commands/workers.js')).workersCommand,
  pool: async () => (await import('./commands/pool.js')).poolCommand,
  demo: async () => (await import('./commands/demo.js')).demoCommand,
  init: async () => (await import('./commands/init.js')).initCommand,
  doctor: async () => (await import('./commands/doctor.js')).doctorCommand,
};

/** Runs one CLI command and returns its exit code; never throws. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    io.stdout.write(USAGE);
    return name ? 0 : 1;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout.write(`driftgate ${driftgateVersion()}\n`);
    return 0;
  }
  if (name === 'help') {
    io.stdout.write(rest[0] && COMMANDS[rest[0]] ? commandHelp(USAGE, rest[0]) : USAGE);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    const close = suggest(name, Object.keys(COMMANDS), 1);
    io.stderr.write(
      `driftgate: unknown command "${name}"${close.length ? `; did you mean "${close[0]}"?` : ''}\n${usageHint(USAGE, name)}`,
    );
    return 1;
  }
  const own = rest.indexOf('--') < 0 ? rest : rest.slice(0, rest.indexOf('--'));
  if (own.includes('--help') || own.includes('-h')) {
    io.stdout.write(commandHelp(USAGE, name));
    return 0;
  }
  try {
    const { args, log } = takeLogOptions(rest);
    return await (await command())(args, { ...io, log });
  } catch (err) {
    if (
      err instanceof UsageError ||
      (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      // node's parseArgs explains in a second sentence how to pass a positional starting with '-'.
      const message = err instanceof UsageError ? err.message : (err as Error).message.split('. ')[0];
      const option = /^Unknown option '(--?[^']+)'/.exec(message ?? '')?.[1];
      const close = option ? suggest(option, commandOptions(USAGE, name), 1) : [];
      io.stderr.write(
        `driftgate ${name}: ${message}${close.length ? `; did you mean "${close[0]}"?` : ''}\n${usageHint(USAGE, name)}`,
      );
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
