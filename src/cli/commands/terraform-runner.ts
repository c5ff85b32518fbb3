import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startTerraformRunner } from '../../app/terraform-runner.js';
import { createLogger } from '../../logging/logger.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../io.js';
import { logSettings } from '../log-options.js';

/**
 * `driftgate terraform-runner --dir DIR [--socket PATH] [--binary terraform|tofu|PATH]`: runs the terraform
 * commands of the worker beside it (runners.terraformContainer) until SIGTERM/SIGINT.
 */
export async function terraformRunnerCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      dir: { type: 'string' },
      socket: { type: 'string' },
      binary: { type: 'string' },
    },
  });
  if (!values.dir)
    throw new UsageError('say which dir it shares with its worker: --dir DIR (runners.terraformContainer.dir)');
  const dir = resolve(io.cwd, values.dir);
  const log = logSettings(io.log, 'info', 'server');
  const logger = createLogger({ ...log, destination: io.stderr, redact: (line) => line });
  const stopAsked = new Promise<void>((done) => io.onShutdown(() => done()));
  const running = await startTerraformRunner({
    dir,
    socket: values.socket ? resolve(io.cwd, values.socket) : join(dir, 'terraform.sock'),
    binary: values.binary ?? 'terraform',
    env: io.env,
    logger,
  });
  await stopAsked;
  await running.close();
  return 0;
}
