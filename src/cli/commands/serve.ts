import { parseArgs } from 'node:util';
import { startServe } from '../../app/serve.js';
import { loadConfig } from '../../config/load.js';
import { ConfigError } from '../../domain/errors.js';
import { slackEnvIssues } from '../../slack/env.js';
import type { CliIo } from '../io.js';
import { logSettings } from '../log-options.js';
import { portOption } from '../port-option.js';

/** `driftgate serve`: runs until SIGTERM/SIGINT, then shuts down gracefully. */
export async function serveCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { config: { type: 'string', short: 'c' }, port: { type: 'string' } } });
  const { port, portSetting } = portOption(values.port, io);
  const config = await loadConfig({ file: values.config, cwd: io.cwd, env: io.env }).catch((err: unknown) => {
    // The SLACK_* variables' problems with the file's, so that one start shows them all.
    if (err instanceof ConfigError) throw new ConfigError([...err.issues, ...slackEnvIssues(io.env)], err.file);
    throw err;
  });
  // Asked to stop while it starts (recovering an earlier stop's runs, say): it stops as soon as it has
  // started, gracefully, rather than dying halfway (a second signal still ends it at once).
  const stopAsked = new Promise<string>((resolve) => io.onShutdown((signal) => resolve(signal)));
  const running = await startServe(config, {
    env: io.env,
    port,
    portSetting,
    logDestination: io.stderr,
    log: logSettings(io.log, config.log.level, 'server'),
  });
  await running.stop(`${await stopAsked} received`);
  return 0;
}
