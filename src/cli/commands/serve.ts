import { parseArgs } from 'node:util';
import { startServe } from '../../app/serve.js';
import { loadConfig } from '../../config/load.js';
import type { DriftgateConfig } from '../../config/schema.js';
import { ConfigError } from '../../domain/errors.js';
import { slackEnvIssues } from '../../config/slack-settings.js';
import type { CliIo } from '../io.js';
import { configOptions } from '../config-options.js';
import { UsageError } from '../io.js';
import { logSettings } from '../log-options.js';
import { portOption } from '../port-option.js';

/** `driftgate serve`: runs until SIGTERM/SIGINT, then shuts down gracefully. */
export async function serveCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { config: { type: 'string', short: 'c' }, port: { type: 'string' }, 'agent-port': { type: 'string' } },
  });
  const { port, portSetting } = portOption(values.port, io);
  const loaded = await loadConfig(configOptions(values.config, io)).catch((err: unknown) => {
    // The SLACK_* variables' problems with the file's, so that one start shows them all.
    if (err instanceof ConfigError) throw new ConfigError([...err.issues, ...slackEnvIssues(io.env)], err.file);
    throw err;
  });
  const config = withAgentPort(loaded, values['agent-port']);
  // Asked to stop while it starts (recovering an earlier stop's runs, say): it stops as soon as it has
  // started, gracefully, rather than dying halfway (a second signal still ends it at once).
  const stopAsked = new Promise<string>((resolve) => io.onShutdown((signal) => resolve(signal)));
  const running = await startServe(config, {
    env: io.env,
    port,
    portSetting,
    logDestination: io.stderr,
    log: logSettings(io.log, config.log.level, 'server'),
    rediscover: (checkoutHead) => loadConfig({ ...configOptions(values.config, io), checkoutHead }),
  });
  await running.stop(`${await stopAsked} received`);
  return 0;
}

/**
 * `--agent-port N` over `runners.agent.port`: replicas that share one config file (or one host) each
 * listen on their own port for workers, as `--port` does for the rest.
 */
function withAgentPort(config: DriftgateConfig, flag: string | undefined): DriftgateConfig {
  if (flag === undefined) return config;
  const port = Number(flag);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`invalid --agent-port ${flag}`);
  const runners = config.runners;
  if (runners?.type !== 'workers')
    throw new UsageError("--agent-port is the workers' agent API's port: only with runners: {type: workers}");
  return { ...config, runners: { ...runners, agent: { ...runners.agent, port } } };
}
