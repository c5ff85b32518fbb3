import { parseArgs } from 'node:util';
import { startServe } from '../../app/serve.js';
import { loadConfig } from '../../config/load.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../io.js';
import { logSettings } from '../log-options.js';

/** `driftgate serve`: runs until SIGTERM/SIGINT, then shuts down gracefully. */
export async function serveCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { config: { type: 'string', short: 'c' }, port: { type: 'string' } } });
  const port = Number(values.port ?? io.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`invalid port ${values.port ?? io.env.PORT}`);
  const config = await loadConfig({ file: values.config, cwd: io.cwd, env: io.env });
  const running = await startServe(config, {
    env: io.env,
    port,
    logDestination: io.stderr,
    log: logSettings(io.log, config.log.level, 'server'),
  });
  await new Promise<void>((resolve) => io.onShutdown(() => resolve()));
  await running.stop();
  return 0;
}
